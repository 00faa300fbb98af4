package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// parityDir holds the PostgREST-parity suites: postgrest-js through
// supabase-js against a generic fixture schema (schema.sql), not the app's.
var parityDir = filepath.Join("..", "..", "frontend", "tests", "parity")

// paritySettings are the gateway settings every parity suite runs under:
// the fixture's second schema exposed, and PostgREST's optional features
// switched on the way a PostgREST-compatible deployment would.
var paritySettings = map[string]string{
	"DB_SCHEMAS":            "public,personal",
	"DB_TX_END":             "commit-allow-override",
	"DB_PLAN_ENABLED":       "true",
	"DB_AGGREGATES_ENABLED": "true",
}

// TestParitySuites runs each frontend/tests/parity/*.test.mjs file against
// its own fresh database (platform and app migrations, then schema.sql and,
// when PostGIS can be created, postgis.sql) and its own gateway, so one
// file's writes cannot break another's.
func TestParitySuites(t *testing.T) {
	requireAcceptance(t)
	files, schemaSQL, postgisSQL := parityInputs(t)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".test.mjs"), func(t *testing.T) {
			runParityFile(t, f, schemaSQL, postgisSQL, nil)
		})
	}
}

// parityInputs lists the parity files in name order and reads the SQL
// every file's database gets before it runs.
func parityInputs(t *testing.T) (files []string, schemaSQL, postgisSQL string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(parityDir, "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parity suites in %s (%v)", parityDir, err)
	}
	sort.Strings(files)
	schema, err := os.ReadFile(filepath.Join(parityDir, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	postgis, err := os.ReadFile(filepath.Join(parityDir, "postgis.sql"))
	if err != nil {
		t.Fatal(err)
	}
	return files, string(schema), string(postgis)
}

// runParityFile runs one parity file on a fresh database: pgtest's, or
// the one on returns with settings laid over the suite's (a pooler, say).
func runParityFile(t *testing.T, file, schemaSQL, postgisSQL string, on func(*testing.T) (*pgtest.DB, map[string]string)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, extra := (*pgtest.DB)(nil), map[string]string(nil)
	if on != nil {
		db, extra = on(t)
	} else {
		db = pgtest.New(t)
	}
	if _, err := db.Pool.Exec(ctx, schemaSQL); err != nil {
		t.Fatalf("schema.sql: %v", err)
	}
	postgis := "1"
	if _, err := db.Pool.Exec(ctx, postgisSQL); err != nil {
		// The suites skip their GeoJSON tests with this reason.
		postgis = "0"
		t.Logf("PostGIS is not available (%v); GeoJSON tests will skip", err)
	}
	env := map[string]string{
		"DATABASE_URL":              db.URL,
		"JWT_SECRET":                "parity-secret-parity-secret-parity-0123456789",
		"CRAWL_DISABLED":            "true",
		"RATE_LIMIT_TOKEN_PER_HOUR": "100000",
	}
	for k, v := range paritySettings {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	cfg := configtest.New(t, env)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()

	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	// Run from frontend/ so the suite resolves @supabase/supabase-js from
	// the app's own node_modules.
	cmd := exec.CommandContext(ctx, "node", "--test", "--test-concurrency=1", abs)
	cmd.Dir = filepath.Join(parityDir, "..", "..")
	cmd.Env = append(os.Environ(),
		"LABELBASE_URL="+srv.URL,
		"LABELBASE_ANON_KEY="+cfg.AnonKey,
		"LABELBASE_SERVICE_ROLE_KEY="+cfg.ServiceRoleKey,
		"LABELBASE_POSTGIS="+postgis,
	)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test %s: %v", filepath.Base(file), err)
	}
	fmt.Fprintf(os.Stdout, "parity suite %s passed\n", filepath.Base(file))
}

// parityCIDir holds a suite run the way a project's own CI would run it:
// one database holding ci/schema.sql, one gateway, the files in name
// order, each seeing what the ones before it wrote. The gateway gets no
// PostgREST-style settings from its environment: ci/schema.sql configures
// it through pgrst.* settings on the authenticator role only.
var parityCIDir = filepath.Join(parityDir, "ci")

// TestParityCISuite runs frontend/tests/parity/ci. Role settings reach
// every database of the cluster, so it resets them when done.
func TestParityCISuite(t *testing.T) {
	requireAcceptance(t)
	files, err := filepath.Glob(filepath.Join(parityCIDir, "*.test.mjs"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suites in %s (%v)", parityCIDir, err)
	}
	sort.Strings(files)
	schemaSQL, err := os.ReadFile(filepath.Join(parityCIDir, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := pgtest.New(t)
	t.Cleanup(func() {
		var names []string
		rows, err := db.Pool.Query(context.Background(), `SELECT DISTINCT split_part(unnest(setconfig), '=', 1)
			FROM pg_db_role_setting WHERE setrole = 'authenticator'::regrole`)
		if err == nil {
			for rows.Next() {
				var n string
				if rows.Scan(&n) == nil && strings.HasPrefix(n, "pgrst.") {
					names = append(names, n)
				}
			}
			rows.Close()
		}
		for _, n := range names {
			if _, err := db.Pool.Exec(context.Background(), "ALTER ROLE authenticator RESET "+pgx.Identifier{n}.Sanitize()); err != nil {
				t.Errorf("reset %s: %v", n, err)
			}
		}
	})
	if _, err := db.Pool.Exec(ctx, string(schemaSQL)); err != nil {
		t.Fatalf("ci/schema.sql: %v", err)
	}
	secret := "parity-secret-parity-secret-parity-0123456789"
	env := map[string]string{
		"DATABASE_URL":              db.URL,
		"JWT_SECRET":                secret,
		"CRAWL_DISABLED":            "true",
		"RATE_LIMIT_TOKEN_PER_HOUR": "100000",
	}
	cfg := configtest.New(t, env)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	// The suites change settings with NOTIFY pgrst: the watcher must run
	// (and have subscribed) before they start.
	bg, stop := context.WithCancel(ctx)
	defer stop()
	a.StartBackground(bg, false)
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()
	select {
	case <-a.REST.Listening():
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway never subscribed to NOTIFY pgrst")
	}

	args := []string{"--test", "--test-concurrency=1"}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, abs)
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = filepath.Join(parityDir, "..", "..")
	cmd.Env = append(os.Environ(),
		"LABELBASE_URL="+srv.URL,
		"LABELBASE_ANON_KEY="+cfg.AnonKey,
		"LABELBASE_SERVICE_ROLE_KEY="+cfg.ServiceRoleKey,
		"LABELBASE_JWT_SECRET="+secret,
	)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node --test ci/*.test.mjs: %v", err)
	}
}
