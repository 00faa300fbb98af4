package pgtest_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// A database whose temporary logical slot is still streaming when the test
// ends (a gateway's postgres_changes leader a moment after Close) is
// dropped at cleanup all the same.
func TestCleanupDropsADatabaseWithAnActiveSlot(t *testing.T) {
	ctx := context.Background()
	var name string
	var repl *pgconn.PgConn
	t.Run("database", func(t *testing.T) {
		db := pgtest.New(t)
		name = db.Name
		u, err := url.Parse(db.URL)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Set("replication", "database")
		u.RawQuery = q.Encode()
		if repl, err = pgconn.Connect(ctx, u.String()); err != nil {
			t.Fatal(err)
		}
		if _, err := pglogrepl.CreateReplicationSlot(ctx, repl, "held_by_test", "pgoutput",
			pglogrepl.CreateReplicationSlotOptions{Temporary: true, SnapshotAction: "NOEXPORT_SNAPSHOT"}); err != nil {
			t.Fatal(err)
		}
		// repl stays open: the slot is active when the cleanup drops the database.
	})
	if repl != nil {
		defer repl.Close(ctx)
	}
	var left int
	if err := pgtest.New(t).Pool.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("database %s was not dropped", name)
	}
}
