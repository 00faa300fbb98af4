package schema

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Relationship detection beyond plain foreign keys: one-to-one keys (the
// referencing columns are also unique) and many-to-many junction tables,
// following PostgREST's rules.

// Junction is a many-to-many relationship: Src goes from the junction
// table to the table embedding from, Dst from the junction to the
// embedded table.
type Junction struct {
	Table *Table
	Src   *FK
	Dst   *FK
}

// uniqueSQL lists unique, non-partial indexes on plain columns (these
// include primary keys and unique constraints).
const uniqueSQL = `
SELECT ns.nspname, cl.relname,
       ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) k(n)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n)
  FROM pg_catalog.pg_index i
  JOIN pg_catalog.pg_class cl ON cl.oid = i.indrelid
  JOIN pg_catalog.pg_namespace ns ON ns.oid = cl.relnamespace
 WHERE i.indisunique AND i.indpred IS NULL AND NOT (0 = ANY(i.indkey::int2[])) AND ns.nspname = ANY($1)
 ORDER BY ns.nspname, cl.relname, i.indexrelid`

func loadUniques(ctx context.Context, tx pgx.Tx, c *Cache, schemas []string) error {
	rows, err := tx.Query(ctx, uniqueSQL, schemas)
	if err != nil {
		return fmt.Errorf("schema: unique keys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var sch, rel string
		var cols []string
		if err := rows.Scan(&sch, &rel, &cols); err != nil {
			return fmt.Errorf("schema: unique keys: %w", err)
		}
		if t := c.Tables[QI{sch, rel}]; t != nil && len(cols) > 0 {
			t.Uniques = append(t.Uniques, cols)
		}
	}
	return rows.Err()
}

// Link derives what depends on keys: it marks one-to-one foreign keys.
// Load calls it; a cache built by hand must call it once complete.
func (c *Cache) Link() {
	for _, t := range c.Tables {
		for _, fk := range t.FKs {
			fk.OneToOne = t.isKey(fk.FromCols)
		}
	}
}

// isKey says whether cols are exactly the primary key or a unique key.
func (t *Table) isKey(cols []string) bool {
	if sameSet(cols, t.PK) {
		return true
	}
	for _, u := range t.Uniques {
		if sameSet(cols, u) {
			return true
		}
	}
	return false
}

// keyCovers says whether the primary key or one unique key contains all
// of cols.
func (t *Table) keyCovers(cols []string) bool {
	if subset(cols, t.PK) {
		return true
	}
	for _, u := range t.Uniques {
		if subset(cols, u) {
			return true
		}
	}
	return false
}

// Junctions lists the many-to-many relationships of t: tables holding a
// foreign key to t and one to another table whose columns together lie in
// the junction's primary key or in one of its unique keys.
func (c *Cache) Junctions(t *Table) []Junction {
	var out []Junction
	for _, src := range t.Refs {
		j := c.Tables[src.From]
		if j == nil {
			continue
		}
		for _, dst := range j.FKs {
			if dst == src || c.Tables[dst.To] == nil {
				continue
			}
			cols := append(append([]string(nil), src.FromCols...), dst.FromCols...)
			if j.keyCovers(cols) {
				out = append(out, Junction{Table: j, Src: src, Dst: dst})
			}
		}
	}
	return out
}

func subset(a, b []string) bool {
	if len(b) == 0 {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	return len(a) > 0 && len(a) == len(b) && subset(a, b) && subset(b, a)
}
