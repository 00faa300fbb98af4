package app_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestContractSuitesThroughPgBouncer runs the supabase-js contract suite
// against a gateway whose pools go through PgBouncer 1.18 in transaction
// mode (four server connections) with DB_PREPARED_STATEMENTS=false, and
// whose sessions use the direct URL (docs/scaling.md).
func TestContractSuitesThroughPgBouncer(t *testing.T) {
	requireAcceptance(t)
	s := pgtest.SharedReplicaSet(t)
	runNodeSuiteOn(t, "test:contract", func(t *testing.T) (*pgtest.DB, map[string]string) {
		db := s.NewDB(t)
		b := s.BouncerFor(t, db.Name, 4)
		return db, map[string]string{
			"DATABASE_URL":           b.URL("owner"),
			"REST_DATABASE_URL":      b.URL("rest"),
			"DATABASE_DIRECT_URL":    db.URL,
			"DB_PREPARED_STATEMENTS": "false",
		}
	})
}

// TestParitySuitesThroughPgBouncer runs every PostgREST-parity file (the
// REST contract: postgrest-js through supabase-js) the same way, each on
// its own database behind its own PgBouncer 1.18 in transaction mode with
// four server connections and DB_PREPARED_STATEMENTS=false.
func TestParitySuitesThroughPgBouncer(t *testing.T) {
	requireAcceptance(t)
	s := pgtest.SharedReplicaSet(t)
	files, err := filepath.Glob(filepath.Join(parityDir, "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parity suites in %s (%v)", parityDir, err)
	}
	sort.Strings(files)
	schemaSQL, err := os.ReadFile(filepath.Join(parityDir, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	postgisSQL, err := os.ReadFile(filepath.Join(parityDir, "postgis.sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test.mjs"), func(t *testing.T) {
			runParityFile(t, f, string(schemaSQL), string(postgisSQL), func(t *testing.T) (*pgtest.DB, map[string]string) {
				db := s.NewDB(t)
				b := s.BouncerFor(t, db.Name, 4)
				return db, map[string]string{
					"DATABASE_URL":           b.URL("owner"),
					"REST_DATABASE_URL":      b.URL("rest"),
					"DATABASE_DIRECT_URL":    db.URL,
					"DB_PREPARED_STATEMENTS": "false",
				}
			})
		})
	}
}
