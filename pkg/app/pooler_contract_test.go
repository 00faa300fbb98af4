package app_test

import (
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
