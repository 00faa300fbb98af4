package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// runCLI runs the labelbase command line as a user would, with DATABASE_URL
// pointing at db.
func runCLI(t *testing.T, dbURL string, args ...string) (string, error) {
	t.Helper()
	t.Setenv("DATABASE_URL", dbURL)
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	return out.String(), err
}

// The admin commands share the process environment, so they run in
// sequence on one database.
func TestAdminCommands(t *testing.T) {
	db := pgtest.NewEmpty(t)

	out, err := runCLI(t, db.URL, "migrate", "version")
	if err != nil || !strings.HasPrefix(out, "version 0 of ") {
		t.Fatalf("migrate version on an empty database: %q, %v", out, err)
	}
	out, err = runCLI(t, db.URL, "migrate", "up")
	if err != nil || !regexp.MustCompile(`^version (\d+) of (\d+) \(clean\)`).MatchString(out) {
		t.Fatalf("migrate up: %q, %v", out, err)
	}
	if m := regexp.MustCompile(`^version (\d+) of (\d+)`).FindStringSubmatch(out); m[1] != m[2] {
		t.Fatalf("migrate up stopped short: %q", out)
	}

	out, err = runCLI(t, db.URL, "invite", "create", "--uses", "2", "--expires", "48h", "--note", "for Ada")
	code := strings.TrimSpace(out)
	if err != nil || !regexp.MustCompile(`^[2-9a-z]{4}(-[2-9a-z]{4}){5}$`).MatchString(code) {
		t.Fatalf("invite create printed %q, %v; want the code alone", out, err)
	}
	out, err = runCLI(t, db.URL, "invite", "list")
	if err != nil || !strings.Contains(out, code) || !strings.Contains(out, "active") || !strings.Contains(out, "0/2") || !strings.Contains(out, "for Ada") {
		t.Fatalf("invite list: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "invite", "revoke", code); err != nil || strings.TrimSpace(out) != "revoked" {
		t.Fatalf("invite revoke: %q, %v", out, err)
	}
	if out, _ = runCLI(t, db.URL, "invite", "list"); !strings.Contains(out, "revoked") {
		t.Fatalf("list after revoke: %q", out)
	}
	if _, err = runCLI(t, db.URL, "invite", "revoke", "no-such-code"); err == nil || !strings.Contains(err.Error(), "no invite code") {
		t.Fatalf("revoking an unknown code: %v", err)
	}

	out, err = runCLI(t, db.URL, "demo")
	if err != nil || !strings.Contains(out, "loaded 40 labels and 600 releases") {
		t.Fatalf("demo: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "demo"); err != nil || !strings.Contains(out, "nothing loaded") {
		t.Fatalf("second demo: %q, %v", out, err)
	}
}

func TestUsageErrors(t *testing.T) {
	cases := [][]string{
		nil,
		{"frobnicate"},
		{"migrate"},
		{"migrate", "sideways"},
		{"invite"},
		{"invite", "create", "--uses", "0"},
		{"invite", "create", "--bogus"},
		{"invite", "revoke"},
		{"dev", "extra"},
	}
	for _, args := range cases {
		var ue usageError
		if _, err := runCLI(t, "postgres://127.0.0.1:1/none", args...); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v; want a usage error", args, err)
		}
	}
}

func TestKeysNeedASecret(t *testing.T) {
	t.Setenv("JWT_SECRET", "")
	t.Setenv("LABELBASE_DATA_DIR", t.TempDir())
	if _, err := runCLI(t, "postgres://x/y", "keys"); err == nil || !strings.Contains(err.Error(), "JWT_SECRET") {
		t.Fatalf("keys without a secret: %v", err)
	}
	t.Setenv("JWT_SECRET", "0123456789abcdef0123456789abcdef")
	out, err := runCLI(t, "postgres://x/y", "keys")
	if err != nil || !strings.Contains(out, "ANON_KEY=ey") || !strings.Contains(out, "SERVICE_ROLE_KEY=ey") {
		t.Fatalf("keys: %q, %v", out, err)
	}
}

// With DB_PREPARED_STATEMENTS=false (DATABASE_URL a transaction pooler
// that cannot keep prepared statements) the commands' pools are in exec
// mode, as the gateway's are, and the commands work in it.
func TestCommandsInExecMode(t *testing.T) {
	db := pgtest.New(t)
	t.Setenv("DB_PREPARED_STATEMENTS", "false")
	t.Setenv("JWT_SECRET", "0123456789abcdef0123456789abcdef")
	t.Setenv("DATABASE_URL", db.URL)
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)
	pool, err := openPool(ctx, log)
	if err != nil {
		t.Fatal(err)
	}
	mode := pool.Config().ConnConfig.DefaultQueryExecMode
	pool.Close()
	if mode != pgx.QueryExecModeExec {
		t.Fatalf("openPool is in %v mode, want exec", mode)
	}
	u, err := newUserCLI(ctx, log)
	if err != nil {
		t.Fatal(err)
	}
	mode = u.pool.Config().ConnConfig.DefaultQueryExecMode
	u.pool.Close()
	if mode != pgx.QueryExecModeExec {
		t.Fatalf("the user commands' pool is in %v mode, want exec", mode)
	}
	if out, err := runCLI(t, db.URL, "invite", "create", "--uses", "2"); err != nil {
		t.Fatalf("invite create: %q, %v", out, err)
	}
	if out, err := runCLI(t, db.URL, "user", "create", "exec@example.test", "--password", "exec password 1"); err != nil || !strings.Contains(out, "exec@example.test") {
		t.Fatalf("user create: %q, %v", out, err)
	}
	if out, err := runCLI(t, db.URL, "user", "admin", "exec@example.test"); err != nil {
		t.Fatalf("user admin: %q, %v", out, err)
	}
	if out, err := runCLI(t, db.URL, "user", "list"); err != nil || !strings.Contains(out, "exec@example.test") {
		t.Fatalf("user list: %q, %v", out, err)
	}
}
