package pgchanges

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// checkSQL asks realtime.changes_visible (migration 20261127202500) which
// of the groups may SELECT the row with this primary key: one statement
// that switches role and claims per group inside the server, so a change
// costs one round trip and one statement per gateway whatever the number
// of groups.
const checkSQL = `SELECT realtime.changes_visible($1::text::regclass, $2::text[], $3::text[], $4::text[], $5::text[], $6, $7)`

// visible decides, per group, whether the changed row is visible under
// RLS, once the change's transaction is visible to new snapshots (see the
// migration). It reads the row as it is now (as Supabase does): a row changed
// again since is judged by its newer state. On any failure nobody sees the
// change (fail closed) and the cause is logged.
func (s *Service) visible(ctx context.Context, c *change, groups []group) []bool {
	out := make([]bool, len(groups))
	keys, vals, ok := c.keyValues(c.New)
	if !ok {
		s.log.Warn("postgres_changes: RLS table change without a primary key value; not delivered",
			"schema", c.Schema, "table", c.Table)
		return out
	}
	roles := make([]string, len(groups))
	claims := make([]string, len(groups))
	for i, g := range groups {
		roles[i], claims[i] = g.role, g.claims
		if claims[i] == "" {
			claims[i] = "{}"
		}
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	table := pgx.Identifier{c.Schema, c.Table}.Sanitize()
	var xid *int64 // NULL: no visibility wait (a change not from the WAL)
	if c.Xid != 0 {
		x := int64(c.Xid)
		xid = &x
	}
	var idx []int32
	s.checks.Add(1)
	err := s.cfg.Pool.QueryRow(ctx, checkSQL, table, keys, vals, roles, claims, xid, false).Scan(&idx)
	if err != nil && ctx.Err() == nil {
		// A policy raised for some group: ask again with each group in a
		// subtransaction of its own, so only that group misses the row.
		s.checks.Add(1)
		err = s.cfg.Pool.QueryRow(ctx, checkSQL, table, keys, vals, roles, claims, xid, true).Scan(&idx)
	}
	if err != nil {
		s.log.Warn("postgres_changes: RLS check failed; change not delivered",
			"schema", c.Schema, "table", c.Table, "err", err)
		return out
	}
	for _, i := range idx {
		if i >= 1 && int(i) <= len(out) {
			out[i-1] = true
		}
	}
	return out
}
