package migrate_test

import (
	"context"
	"testing"

	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// schemaObjects counts what the migrations create, to prove down removes it
// all and up brings it back.
func schemaObjects(t *testing.T, db *pgtest.DB) (tables, functions int) {
	t.Helper()
	err := db.Pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM pg_tables WHERE schemaname IN ('public', 'auth') AND tablename <> 'labelbase_schema_migrations'),
		       (SELECT count(*) FROM pg_proc WHERE pronamespace IN ('public'::regnamespace))`).Scan(&tables, &functions)
	if err != nil {
		t.Fatal(err)
	}
	return tables, functions
}

func TestUpDownUp(t *testing.T) {
	t.Parallel()
	db := pgtest.NewEmpty(t)
	m, err := migrate.New(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()

	latest, err := migrate.Latest()
	if err != nil || latest == 0 {
		t.Fatalf("Latest() = %d, %v", latest, err)
	}
	if v, _, err := m.Version(); err != nil || v != 0 {
		t.Fatalf("fresh database version = %d, %v; want 0", v, err)
	}

	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	v, dirty, err := m.Version()
	if err != nil || v != latest || dirty {
		t.Fatalf("after up: version %d dirty %v err %v; want %d clean", v, dirty, err, latest)
	}
	tables, funcs := schemaObjects(t, db)
	if tables < 12 || funcs < 11 {
		t.Fatalf("after up: %d tables, %d public functions; want the app and auth schema", tables, funcs)
	}

	// Versions are the steps golang-migrate takes: stepping back over all
	// but the first lands on the first.
	vs, err := migrate.Versions()
	if err != nil || len(vs) < 2 {
		t.Fatalf("Versions() = %v, %v", vs, err)
	}
	if err := m.Steps(-(len(vs) - 1)); err != nil {
		t.Fatal(err)
	}
	if v, _, err := m.Version(); err != nil || uint64(v) != vs[0] {
		t.Fatalf("after %d steps down: version %d, %v; want %d", len(vs)-1, v, err, vs[0])
	}

	// Up on an up-to-date database is a no-op.
	if err := m.Up(); err != nil {
		t.Fatalf("up after the steps down: %v", err)
	}
	if err := m.Up(); err != nil {
		t.Fatalf("second up: %v", err)
	}

	if err := m.Down(); err != nil {
		t.Fatal(err)
	}
	if v, _, err := m.Version(); err != nil || v != 0 {
		t.Fatalf("after down: version %d, %v", v, err)
	}
	if tables, funcs := schemaObjects(t, db); tables != 0 || funcs != 0 {
		t.Fatalf("after down: %d tables and %d functions left", tables, funcs)
	}

	if err := m.Up(); err != nil {
		t.Fatalf("up after down: %v", err)
	}
	if t2, f2 := schemaObjects(t, db); t2 != tables || f2 != funcs {
		t.Fatalf("up after down: %d tables %d functions; want %d and %d", t2, f2, tables, funcs)
	}
}

func TestRejectsBadURL(t *testing.T) {
	t.Parallel()
	if _, err := migrate.New("mysql://x"); err == nil {
		t.Fatal("want an error for a non-postgres URL")
	}
}
