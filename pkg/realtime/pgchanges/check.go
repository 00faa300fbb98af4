package pgchanges

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/db"
)

// errCheckFailed is what a client is told when the database could not be
// asked; the cause is logged.
var errCheckFailed = errors.New("postgres_changes: the subscription could not be checked, try again")

// Check validates one binding at join, so that a subscription that could
// never deliver is refused with a reason instead of staying silent: the
// event, the table (or schema) and its membership in the publication, the
// role's SELECT privilege, a primary key when RLS is on, and the filter
// (its syntax, its columns, each value as the column's type). The error
// text is meant for the client. A binding it accepts is live when it
// returns: it waits (boundedly) for a gateway to stream the WAL.
func (s *Service) Check(ctx context.Context, sub Subscription) error {
	switch sub.Event {
	case "*", "INSERT", "UPDATE", "DELETE":
	default:
		return fmt.Errorf("postgres_changes: event must be *, INSERT, UPDATE or DELETE, not %q", sub.Event)
	}
	if sub.Schema == "" {
		return errors.New("postgres_changes: schema is required")
	}
	if err := db.CheckRole(sub.Role); err != nil {
		return fmt.Errorf("postgres_changes: role %q may not subscribe", sub.Role)
	}
	conds, err := parseFilter(sub.Filter)
	if err != nil {
		return fmt.Errorf("postgres_changes: %w", err)
	}
	if err := s.checkBinding(ctx, sub, conds); err != nil {
		return err
	}
	s.awaitStream(ctx)
	return nil
}

// checkBinding checks a whole-schema binding or a table's and its filter.
func (s *Service) checkBinding(ctx context.Context, sub Subscription, conds []condition) error {
	if sub.Table == "" || sub.Table == "*" {
		if len(conds) > 0 {
			return errors.New("postgres_changes: a filter needs a table")
		}
		return s.checkSchema(ctx, sub)
	}
	rel, err := s.checkTable(ctx, sub)
	if err != nil {
		return err
	}
	for _, c := range conds {
		if err := s.checkCondition(ctx, sub, rel, c); err != nil {
			return err
		}
	}
	return nil
}

// checkSchema accepts a whole-schema subscription when the schema has at
// least one published table the role may SELECT.
func (s *Service) checkSchema(ctx context.Context, sub Subscription) error {
	var n int
	err := s.cfg.Pool.QueryRow(ctx, `
		SELECT count(*) FROM pg_publication_tables p
		 WHERE p.pubname = $1 AND p.schemaname = $2
		   AND has_schema_privilege($3, p.schemaname, 'USAGE')
		   AND has_table_privilege($3, format('%I.%I', p.schemaname, p.tablename), 'SELECT')`,
		s.cfg.Publication, sub.Schema, sub.Role).Scan(&n)
	if err != nil {
		return s.internal("schema", err)
	}
	if n == 0 {
		return fmt.Errorf("postgres_changes: no table of schema %s that role %s may read is in publication %s",
			sub.Schema, sub.Role, s.cfg.Publication)
	}
	return nil
}

// tableInfo is what checkTable learned about a subscribed table.
type tableInfo struct {
	oid uint32
}

func (s *Service) checkTable(ctx context.Context, sub Subscription) (tableInfo, error) {
	var t tableInfo
	var rls, published, canRead, hasPK bool
	err := s.cfg.Pool.QueryRow(ctx, `
		SELECT c.oid, c.relrowsecurity,
		       EXISTS (SELECT 1 FROM pg_publication_tables p
		                WHERE p.pubname = $3 AND p.schemaname = n.nspname AND p.tablename = c.relname),
		       has_schema_privilege($4, n.oid, 'USAGE') AND has_table_privilege($4, c.oid, 'SELECT'),
		       EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary)
		  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')`,
		sub.Schema, sub.Table, s.cfg.Publication, sub.Role).Scan(&t.oid, &rls, &published, &canRead, &hasPK)
	name := sub.Schema + "." + sub.Table
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return t, fmt.Errorf("postgres_changes: table %s does not exist", name)
	case err != nil:
		return t, s.internal("table", err)
	case !published:
		return t, fmt.Errorf("postgres_changes: table %s is not in publication %s (ALTER PUBLICATION %s ADD TABLE %s)",
			name, s.cfg.Publication, s.cfg.Publication, name)
	case !canRead:
		return t, fmt.Errorf("postgres_changes: role %s may not SELECT from %s", sub.Role, name)
	case rls && !hasPK:
		return t, fmt.Errorf("postgres_changes: table %s has row-level security but no primary key, "+
			"so its rows cannot be checked per subscriber", name)
	}
	return t, nil
}

// checkCondition checks that the filter's column exists and may be read
// by the role, and that each value is valid input for the column's type
// (PostgreSQL's own cast decides, so the message is PostgreSQL's).
func (s *Service) checkCondition(ctx context.Context, sub Subscription, t tableInfo, c condition) error {
	var typ string
	var canRead bool
	err := s.cfg.Pool.QueryRow(ctx, `
		SELECT a.atttypid::regtype::text, has_column_privilege($3, a.attrelid, a.attnum, 'SELECT')
		  FROM pg_attribute a WHERE a.attrelid = $1 AND a.attname = $2 AND a.attnum > 0 AND NOT a.attisdropped`,
		t.oid, c.Column, sub.Role).Scan(&typ, &canRead)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("postgres_changes: filter names column %q, which %s.%s does not have", c.Column, sub.Schema, sub.Table)
	case err != nil:
		return s.internal("column", err)
	case !canRead:
		return fmt.Errorf("postgres_changes: role %s may not SELECT column %s", sub.Role, c.Column)
	}
	// typ is the catalog's own rendering of a type name (quoted where
	// needed), never client input; the values are bound.
	_, err = s.cfg.Pool.Exec(ctx, "SELECT v::"+typ+" FROM unnest($1::text[]) v", c.Values)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Errorf("postgres_changes: filter value for %s: %s", c.Column, pgErr.Message)
	}
	if err != nil {
		return s.internal("filter value", err)
	}
	return nil
}

func (s *Service) internal(what string, err error) error {
	s.log.Warn("postgres_changes: join check failed", "step", what, "err", err)
	return errCheckFailed
}
