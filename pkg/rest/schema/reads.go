package schema

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/db"
)

// readsSQL finds which request settings anything in the database could
// read, by searching the text of every place SQL runs on a request's
// behalf: function bodies (triggers, the pre-request function and
// anything a policy calls included), policy expressions, view
// definitions, column defaults and check constraints, in every schema but
// PostgreSQL's own. Setting names are case-insensitive, hence ILIKE.
//
// A name built at run time ('request.' || x, format('request.%s')) cannot
// be matched, so a text that builds one counts as reading them all. A
// C-language function's body is a symbol name and cannot be searched;
// no extension of Supabase's reads these settings from C. prosqlbody and
// pg_get_function_sqlbody (BEGIN ATOMIC bodies) need PostgreSQL 14 or
// later, as hosted Supabase (15+) and compose.yaml (17) have.
const readsSQL = `
WITH src(t) AS (
  SELECT CASE WHEN p.prosqlbody IS NULL THEN p.prosrc ELSE pg_catalog.pg_get_function_sqlbody(p.oid) END
    FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT concat(pg_catalog.pg_get_expr(pol.polqual, pol.polrelid), ' ', pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid))
    FROM pg_catalog.pg_policy pol
  UNION ALL
  SELECT pg_catalog.pg_get_viewdef(c.oid)
    FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind IN ('v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  UNION ALL
  SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d
  UNION ALL
  SELECT pg_catalog.pg_get_constraintdef(con.oid) FROM pg_catalog.pg_constraint con WHERE con.contype = 'c'
), dyn AS (
  SELECT coalesce(bool_or(t ILIKE '%''request.''%' OR t ILIKE '%request.\%%'), false) AS built
    FROM src
)
SELECT (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.method%'), false),
       (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.path%'), false),
       (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.headers%'), false),
       (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.cookies%'), false)
  FROM src`

// loadReads decides Cache.Reads from the catalog.
func loadReads(ctx context.Context, tx pgx.Tx) (db.Reads, error) {
	var found [4]bool
	if err := tx.QueryRow(ctx, readsSQL).Scan(&found[0], &found[1], &found[2], &found[3]); err != nil {
		return 0, fmt.Errorf("schema: request settings read: %w", err)
	}
	var r db.Reads
	for i, ok := range found {
		if ok {
			r |= 1 << i
		}
	}
	return r, nil
}
