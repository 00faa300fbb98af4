package app_test

import (
	"path/filepath"
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
	runNodeSuiteOn(t, "test:contract", behindBouncer(pgtest.SharedReplicaSet(t)))
}

// TestParitySuitesThroughPgBouncer runs every PostgREST-parity file (the
// REST contract: postgrest-js through supabase-js) the same way, each on
// its own database behind its own PgBouncer 1.18 in transaction mode with
// four server connections and DB_PREPARED_STATEMENTS=false.
func TestParitySuitesThroughPgBouncer(t *testing.T) {
	requireAcceptance(t)
	onDB := behindBouncer(pgtest.SharedReplicaSet(t))
	files, schemaSQL, postgisSQL := parityInputs(t)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test.mjs"), func(t *testing.T) {
			runParityFile(t, f, schemaSQL, postgisSQL, onDB)
		})
	}
}

// behindBouncer gives a suite a fresh database of s behind its own
// PgBouncer (transaction mode, four server connections) and the settings
// a gateway needs there: both pools through the pooler, sessions on the
// direct URL, no prepared statements.
func behindBouncer(s *pgtest.ReplicaSet) func(t *testing.T) (*pgtest.DB, map[string]string) {
	return func(t *testing.T) (*pgtest.DB, map[string]string) {
		db := s.NewDB(t)
		b := s.BouncerFor(t, db.Name, 4)
		return db, map[string]string{
			"DATABASE_URL":           b.URL("owner"),
			"REST_DATABASE_URL":      b.URL("rest"),
			"DATABASE_DIRECT_URL":    db.URL,
			"DB_PREPARED_STATEMENTS": "false",
		}
	}
}
