package schema

// Relationships through views, as PostgREST detects them: a view column
// that is a plain reference to a base table column carries that column's
// foreign keys. A view exposing messages.channel_id embeds channels, and
// channels embeds the view, through messages' foreign key.
//
// PostgreSQL keeps no catalog of "view column → base column", but the
// view's query tree in pg_rewrite records it on every target entry
// (resorigtbl, resorigcol), which is what PostgREST reads too.

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

const viewRulesSQL = `
SELECT n.nspname, c.relname, r.ev_action::text
  FROM pg_catalog.pg_rewrite r
  JOIN pg_catalog.pg_class c ON c.oid = r.ev_class
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('v', 'm') AND r.rulename = '_RETURN' AND n.nspname = ANY($1)`

// targetEntry matches one target entry's output name and origin. Names
// are printed with backslash escapes.
var targetEntry = regexp.MustCompile(`:resname ((?:\\.|[^\s\\])+) :ressortgroupref \d+ :resorigtbl (\d+) :resorigcol (\d+)`)

type colOrigin struct {
	table  int64
	attnum int
}

func loadViewRelations(ctx context.Context, tx pgx.Tx, c *Cache, schemas []string) error {
	origins, tables, err := loadViewOrigins(ctx, tx, c, schemas)
	if err != nil || len(origins) == 0 {
		return err
	}
	names, err := loadAttNames(ctx, tx, tables)
	if err != nil {
		return err
	}
	byOID := map[int64]*Table{}
	for _, t := range c.Tables {
		byOID[t.OID] = t
	}
	for vq, m := range origins {
		view := c.Tables[vq]
		// base table → its column → the view column exposing it
		exposed := map[*Table]map[string]string{}
		for vcol, o := range m {
			base := byOID[o.table]
			if base == nil || base == view || names[o] == "" {
				continue
			}
			if exposed[base] == nil {
				exposed[base] = map[string]string{}
			}
			exposed[base][names[o]] = vcol
		}
		for base, cols := range exposed {
			c.carryKeys(view, base, cols)
		}
	}
	return nil
}

// loadViewOrigins reads, for every view of schemas, which of its columns
// plainly reference a base column (table oid, attnum), from the view's
// query tree, and the tables referenced.
func loadViewOrigins(ctx context.Context, tx pgx.Tx, c *Cache, schemas []string) (map[QI]map[string]colOrigin, []int64, error) {
	rows, err := tx.Query(ctx, viewRulesSQL, schemas)
	if err != nil {
		return nil, nil, fmt.Errorf("schema: views: %w", err)
	}
	defer rows.Close()
	origins := map[QI]map[string]colOrigin{}
	var tables []int64
	for rows.Next() {
		var sch, name, tree string
		if err := rows.Scan(&sch, &name, &tree); err != nil {
			return nil, nil, fmt.Errorf("schema: views: %w", err)
		}
		view := c.Tables[QI{sch, name}]
		if view == nil {
			continue
		}
		m := map[string]colOrigin{}
		// Subqueries print their target entries before the outer query's,
		// so the last entry of a name is the view's own column.
		for _, g := range targetEntry.FindAllStringSubmatch(tree, -1) {
			col := unescapeNodeString(g[1])
			tbl, _ := strconv.ParseInt(g[2], 10, 64)
			att, _ := strconv.Atoi(g[3])
			if view.Column(col) == nil {
				continue
			}
			if tbl == 0 {
				delete(m, col)
				continue
			}
			m[col] = colOrigin{tbl, att}
			tables = append(tables, tbl)
		}
		if len(m) > 0 {
			origins[view.QI()] = m
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("schema: views: %w", err)
	}
	return origins, tables, nil
}

// loadAttNames names the columns of tables by (table oid, attnum).
func loadAttNames(ctx context.Context, tx pgx.Tx, tables []int64) (map[colOrigin]string, error) {
	names := map[colOrigin]string{}
	arows, err := tx.Query(ctx, `SELECT attrelid::int8, attnum::int, attname::text FROM pg_catalog.pg_attribute
		WHERE attrelid = ANY($1) AND attnum > 0 AND NOT attisdropped`, tables)
	if err != nil {
		return nil, fmt.Errorf("schema: view columns: %w", err)
	}
	defer arows.Close()
	for arows.Next() {
		var o colOrigin
		var name string
		if err := arows.Scan(&o.table, &o.attnum, &name); err != nil {
			return nil, fmt.Errorf("schema: view columns: %w", err)
		}
		names[o] = name
	}
	return names, arows.Err()
}

// carryKeys gives view the foreign keys of base whose columns it exposes
// (cols: base column → view column), both ways: the view references what
// base references, and what references base references the view.
func (c *Cache) carryKeys(view, base *Table, cols map[string]string) {
	vq := view.QI()
	for _, fk := range base.FKs {
		if from, ok := mapCols(fk.FromCols, cols); ok {
			vfk := &FK{Name: fk.Name, From: vq, FromCols: from, To: fk.To, ToCols: fk.ToCols}
			view.FKs = append(view.FKs, vfk)
			if target := c.Tables[fk.To]; target != nil {
				target.Refs = append(target.Refs, vfk)
			}
		}
	}
	for _, fk := range base.Refs {
		if c.Tables[fk.From] == view {
			continue
		}
		if to, ok := mapCols(fk.ToCols, cols); ok {
			vfk := &FK{Name: fk.Name, From: fk.From, FromCols: fk.FromCols, To: vq, ToCols: to}
			if src := c.Tables[fk.From]; src != nil {
				src.FKs = append(src.FKs, vfk)
			}
			view.Refs = append(view.Refs, vfk)
		}
	}
}

// mapCols maps base columns to the view columns exposing them, if all are.
func mapCols(base []string, exposed map[string]string) ([]string, bool) {
	out := make([]string, len(base))
	for i, c := range base {
		v, ok := exposed[c]
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// unescapeNodeString undoes the backslash escapes of a printed node tree.
func unescapeNodeString(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
