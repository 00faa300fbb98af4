package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ApplyDefaultGrants makes the owner's future tables, sequences and
// functions in the exposed schemas usable by anon and authenticated (on)
// or not (off), as hosted Supabase's platform defaults do.
//
// On hosted Supabase every table created in public is granted to anon,
// authenticated and service_role, and row-level security alone decides
// what they see. A schema written for Supabase therefore often has no
// GRANTs, and needs this to work here. The trade-off is Supabase's own: a
// table created without RLS is readable and writable by anyone holding the
// anon key. Off, only service_role gets default privileges (migration 1)
// and every table needs explicit GRANTs, which Labelbase's own migrations
// have either way. Only objects created after the change are affected, as
// with any ALTER DEFAULT PRIVILEGES; the statements are idempotent.
func ApplyDefaultGrants(ctx context.Context, owner *pgxpool.Pool, schemas []string, on bool) error {
	verb, prep := "GRANT", "TO"
	if !on {
		verb, prep = "REVOKE", "FROM"
	}
	tx, err := owner.Begin(ctx)
	if err != nil {
		return fmt.Errorf("db: default grants: %w", err)
	}
	defer tx.Rollback(ctx)
	for _, s := range schemas {
		// A schema named in DB_SCHEMAS that does not exist yet has nothing
		// to default; the schema cache reports it as empty too.
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT to_regnamespace($1) IS NOT NULL", pgx.Identifier{s}.Sanitize()).Scan(&exists); err != nil {
			return fmt.Errorf("db: default grants: %w", err)
		}
		if !exists {
			continue
		}
		sch := pgx.Identifier{s}.Sanitize()
		for _, stmt := range []string{
			"ALTER DEFAULT PRIVILEGES IN SCHEMA " + sch + " " + verb + " ALL ON TABLES " + prep + " anon, authenticated",
			"ALTER DEFAULT PRIVILEGES IN SCHEMA " + sch + " " + verb + " ALL ON SEQUENCES " + prep + " anon, authenticated",
			"ALTER DEFAULT PRIVILEGES IN SCHEMA " + sch + " " + verb + " EXECUTE ON FUNCTIONS " + prep + " anon, authenticated",
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("db: default grants on %s: %w", s, err)
			}
		}
	}
	return tx.Commit(ctx)
}
