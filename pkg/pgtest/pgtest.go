// Package pgtest gives tests isolated, migrated PostgreSQL databases.
//
// With TEST_DATABASE_URL set, databases are created on that server (it must
// allow CREATE DATABASE and role creation). Otherwise the test binary starts
// its own throwaway cluster, which Main stops when the tests end. Every test
// gets a fresh database cloned from a migrated template (tens of
// milliseconds), so tests can commit freely and run in parallel.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgcluster"
	sqlfiles "github.com/labelbase/labelbase/sql"
)

var (
	serverURL string

	templateOnce sync.Once
	templateName string
	templateErr  error
)

// Main runs the package's tests; call it from TestMain. It starts a
// throwaway cluster unless TEST_DATABASE_URL is set, and stops it after.
func Main(m *testing.M) {
	code := run(m)
	stopShared() // replicas.go
	os.Exit(code)
}

func run(m *testing.M) int {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		serverURL = u
		return m.Run()
	}
	// Clusters of test binaries that were killed (a timeout, Ctrl-C) did
	// not stop; stop them now rather than let them pile up.
	if n, err := pgcluster.ReapOrphans(context.Background(), filepath.Join(os.TempDir(), "labelbase-pgtest-*"), "pg"); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: cleaning up orphaned clusters:", err)
	} else if n > 0 {
		fmt.Fprintf(os.Stderr, "pgtest: stopped %d orphaned test cluster(s)\n", n)
	}
	c, stop, err := startServer("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgtest: starting a throwaway cluster:", err)
		return 1
	}
	defer func() {
		if err := stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}()
	serverURL = c.URL("postgres")
	return m.Run()
}

// startServer starts a throwaway server (fsync off) with wal_level
// walLevel ("" for pgcluster's default) in a new directory named
// labelbase-pgtest-*, so that one left by a killed test binary is reaped
// by the next run (see run). stop stops it and removes the directory.
func startServer(walLevel string) (c *pgcluster.Cluster, stop func() error, err error) {
	dir, err := os.MkdirTemp("", "labelbase-pgtest-")
	if err != nil {
		return nil, nil, err
	}
	// When root, the server runs as another user who must enter the dir.
	if err = pgcluster.ClaimDir(dir); err == nil {
		err = os.Chmod(dir, 0o711)
	}
	if err == nil {
		c, err = pgcluster.Start(context.Background(), pgcluster.Options{Dir: filepath.Join(dir, "pg"), Fast: true, WALLevel: walLevel})
	}
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, nil, err
	}
	return c, func() error {
		defer os.RemoveAll(dir)
		return c.Stop()
	}, nil
}

// ServerURL is a superuser URL of the test server's maintenance database.
func ServerURL(t testing.TB) string {
	t.Helper()
	if serverURL == "" {
		t.Fatal("pgtest: no server; call pgtest.Main from TestMain")
	}
	return serverURL
}

// DB is one isolated database.
type DB struct {
	Name string
	// URL connects as the server's superuser.
	URL string
	// Pool is a superuser pool, closed at cleanup.
	Pool *pgxpool.Pool
}

// New returns a fresh, fully migrated database dropped at cleanup.
func New(t testing.TB) *DB {
	t.Helper()
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(serverURL) })
	if templateErr != nil {
		t.Fatalf("pgtest: template: %v", templateErr)
	}
	return create(t, ServerURL(t), templateName)
}

// NewEmpty returns a fresh database with no migrations applied.
func NewEmpty(t testing.TB) *DB {
	t.Helper()
	return create(t, ServerURL(t), "template0")
}

// NewOnOwnServer returns a fresh, fully migrated database on a throwaway
// server of its own, started with wal_level=walLevel and stopped at
// cleanup. It is for what the shared server cannot show, such as a
// gateway on a database whose wal_level is below logical; it costs a
// server start and a migration, so use it sparingly.
func NewOnOwnServer(t testing.TB, walLevel string) *DB {
	t.Helper()
	c, stop, err := startServer(walLevel)
	if err != nil {
		t.Fatalf("pgtest: starting a server with wal_level=%s: %v", walLevel, err)
	}
	// Registered first, so it runs after the database's own cleanup.
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	server := c.URL("postgres")
	template, err := ensureTemplate(server)
	if err != nil {
		t.Fatalf("pgtest: template: %v", err)
	}
	return create(t, server, template)
}

func create(t testing.TB, server, template string) *DB {
	t.Helper()
	ctx := context.Background()
	name := "lbtest_" + randomHex(8)
	admin := connect(t, server)
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s",
		pgx.Identifier{name}.Sanitize(), pgx.Identifier{template}.Sanitize())); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	u := withDatabase(server, name)
	pool, err := pgxpool.New(ctx, u)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		admin := connect(t, server)
		defer admin.Close(ctx)
		if err := dropDatabase(ctx, admin, name); err != nil {
			t.Errorf("pgtest: drop database: %v", err)
		}
	})
	return &DB{Name: name, URL: u, Pool: pool}
}

// dropDatabase drops name. A gateway's postgres_changes leader streams
// from a temporary logical slot on its database, and the slot's walsender
// can outlive the gateway's Close by a moment; DROP DATABASE refuses a
// database a slot still uses (55006), FORCE or not. So the walsenders of
// its slots are ended and the drop is tried again, for up to 10 s, until
// their temporary slots are gone.
func dropDatabase(ctx context.Context, admin *pgx.Conn, name string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots
			WHERE database = $1 AND active_pid IS NOT NULL`, name); err != nil {
			return err
		}
		_, err := admin.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{name}.Sanitize()))
		var pgErr *pgconn.PgError
		if err == nil || !errors.As(err, &pgErr) || pgErr.Code != pgerrcode.ObjectInUse || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ensureTemplate builds the migrated template once per server and schema
// version. Its name carries a hash of the migrations, so a changed
// migration gets a new template; an advisory lock keeps parallel test
// binaries from building the same one twice.
func ensureTemplate(server string) (string, error) {
	if server == "" {
		return "", fmt.Errorf("no server; call pgtest.Main from TestMain")
	}
	ctx := context.Background()
	h := sha256.New()
	err := fs.WalkDir(sqlfiles.Migrations, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := sqlfiles.Migrations.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%s\x00", p, b)
		return nil
	})
	if err != nil {
		return "", err
	}
	name := "lbtpl_" + hex.EncodeToString(h.Sum(nil))[:16]
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(727274)"); err != nil {
		return "", err
	}
	// The lock also ends with the connection; this only frees it sooner.
	defer func() { _, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock(727274)") }()
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_build"
	if _, err := conn.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", pgx.Identifier{building}.Sanitize())); err != nil {
		return "", err
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE template0", pgx.Identifier{building}.Sanitize())); err != nil {
		return "", err
	}
	m, err := migrate.New(withDatabase(server, building))
	if err != nil {
		return "", err
	}
	upErr := m.Up()
	if err := m.Close(); err != nil && upErr == nil {
		upErr = err
	}
	if upErr != nil {
		return "", upErr
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s",
		pgx.Identifier{building}.Sanitize(), pgx.Identifier{name}.Sanitize())); err != nil {
		return "", err
	}
	return name, nil
}

func connect(t testing.TB, u string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), u)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	return c
}

// withDatabase swaps the database name in a postgres:// URL.
func withDatabase(u, name string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	parsed.Path = "/" + name
	return parsed.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}
