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
//
// The fifth column says whether anything could set a response GUC
// (response.headers, response.status): any text naming "response." —
// which also covers a name built from that prefix — in the same places,
// or in a function's SET clause or a role's or database's default
// settings. When nothing can, a write that commits in its own round trip
// needs no guard statement after it (pipeline.go).
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
), conf(t) AS (
  SELECT pg_catalog.array_to_string(p.proconfig, ' ') FROM pg_catalog.pg_proc p WHERE p.proconfig IS NOT NULL
  UNION ALL
  SELECT pg_catalog.array_to_string(s.setconfig, ' ') FROM pg_catalog.pg_db_role_setting s
), dyn AS (
  SELECT coalesce(bool_or(t ILIKE '%''request.''%' OR t ILIKE '%request.\%%'), false) AS built
    FROM src
)
SELECT (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.method%'), false),
       (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.path%'), false),
       (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.headers%'), false),
       (SELECT built FROM dyn) OR coalesce(bool_or(t ILIKE '%request.cookies%'), false),
       coalesce(bool_or(t ILIKE '%response.%'), false)
         OR EXISTS (SELECT 1 FROM conf WHERE t ILIKE '%response.%')
  FROM src`

// loadReads decides Cache.Reads and Cache.WritesResponse from the catalog.
func loadReads(ctx context.Context, tx pgx.Tx) (db.Reads, bool, error) {
	var found [4]bool
	var response bool
	if err := tx.QueryRow(ctx, readsSQL).Scan(&found[0], &found[1], &found[2], &found[3], &response); err != nil {
		return 0, false, fmt.Errorf("schema: request settings read: %w", err)
	}
	var r db.Reads
	for i, ok := range found {
		if ok {
			r |= 1 << i
		}
	}
	return r, response, nil
}
