package main

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// `labelbase queue` lists, retries and rejects submissions through the
// admin procedures, as the database owner.
func TestQueueCommands(t *testing.T) {
	db := pgtest.New(t)
	m := pgtest.CreateUser(t, db.Pool, "sub@example.com", "password-s")
	if _, err := db.Pool.Exec(context.Background(), `
		INSERT INTO public.labels_to_add (id, label_url, is_processed, is_valid, user_id, error) VALUES
		  (1, 'https://pending.bandcamp.com', false, false, $1, NULL),
		  (2, 'https://nope.example.com', true, false, $1, 'not a Bandcamp label')`, m); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, db.URL, "queue")
	if err != nil || !regexp.MustCompile(`(?m)^1\s+pending\s+https://pending\.bandcamp\.com\s+sub@example\.com\s`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^2\s+refused\s+https://nope\.example\.com\s+sub@example\.com\s+\S+ \S+\s+not a Bandcamp label$`).MatchString(out) ||
		!strings.HasSuffix(out, "2 submissions\n") {
		t.Fatalf("queue: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "queue", "list", "--status", "pending"); err != nil || strings.Contains(out, "nope") ||
		!strings.Contains(out, "1 submissions") {
		t.Fatalf("queue list --status pending: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "queue", "reject", "1", "--reason", "a shop, not a label"); err != nil || out != "submission 1 rejected\n" {
		t.Fatalf("reject: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "queue", "list", "--status", "refused"); err != nil ||
		!regexp.MustCompile(`(?m)^1\s+refused\s.*a shop, not a label$`).MatchString(out) {
		t.Fatalf("after reject: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "queue", "retry", "2"); err != nil || !strings.HasPrefix(out, "submission 2 is queued again") {
		t.Fatalf("retry: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "queue", "list", "--status", "pending"); err != nil ||
		!regexp.MustCompile(`(?m)^2\s+pending\s`).MatchString(out) {
		t.Fatalf("after retry: %q, %v", out, err)
	}
	var audited int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM private.admin_audit
		WHERE action IN ('reject_submission', 'retry_submission') AND actor LIKE 'owner:%'`).Scan(&audited); err != nil || audited != 2 {
		t.Errorf("audit rows: %d, %v", audited, err)
	}
	// Refusals from the procedures and bad usage.
	if _, err = runCLI(t, db.URL, "queue", "retry", "99"); err == nil || err.Error() != "No submission 99" {
		t.Errorf("retry of a missing submission: %v", err)
	}
	for _, args := range [][]string{
		{"queue", "reject", "2"}, {"queue", "reject", "2", "--reason", "  "}, {"queue", "retry"},
		{"queue", "retry", "x"}, {"queue", "retry", "0"}, {"queue", "list", "--status", "odd"},
		{"queue", "frobnicate"}, {"queue", "list", "extra"},
	} {
		if _, err := runCLI(t, db.URL, args...); err == nil {
			t.Errorf("%v: no error", args)
		} else if ue := (usageError{}); !errors.As(err, &ue) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// `labelbase user admin` grants and revokes the admin role in
// app_metadata; `user list` shows it and bans.
func TestUserAdminAndListState(t *testing.T) {
	db := pgtest.New(t)
	t.Setenv("JWT_SECRET", "cli-test-secret-cli-test-secret-0123456789")
	t.Setenv("BCRYPT_COST", "4")
	t.Setenv("SITE_URL", "http://labelbase.test")
	pgtest.CreateUser(t, db.Pool, "ada@example.com", "password-a")
	pgtest.CreateUser(t, db.Pool, "bo@example.com", "password-b")
	ctx := context.Background()

	out, err := runCLI(t, db.URL, "user", "admin", "ada@example.com")
	if err != nil || !strings.HasPrefix(out, "ada@example.com is an admin") {
		t.Fatalf("user admin: %q, %v", out, err)
	}
	var role, provider string
	if err := db.Pool.QueryRow(ctx, `SELECT raw_app_meta_data->>'role', raw_app_meta_data->>'provider'
		FROM auth.users WHERE email = 'ada@example.com'`).Scan(&role, &provider); err != nil || role != "admin" || provider != "email" {
		t.Fatalf("app_metadata after user admin: role %q provider %q, %v", role, provider, err)
	}
	if _, err = runCLI(t, db.URL, "user", "ban", "bo@example.com", "--for", "2h"); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, db.URL, "user", "list")
	ada := regexp.MustCompile(`(?m)^\S+\s+ada@example\.com\s.*\s+yes\s+-$`)
	bo := regexp.MustCompile(`(?m)^\S+\s+bo@example\.com\s.*\s+-\s+until \d{4}-\d\d-\d\d \d\d:\d\d UTC$`)
	if err != nil || !strings.Contains(out, "ADMIN") || !strings.Contains(out, "BANNED") || !ada.MatchString(out) || !bo.MatchString(out) {
		t.Fatalf("user list: %q, %v", out, err)
	}
	if _, err = runCLI(t, db.URL, "user", "ban", "bo@example.com"); err != nil {
		t.Fatal(err)
	}
	if out, err = runCLI(t, db.URL, "user", "list"); err != nil ||
		!regexp.MustCompile(`(?m)^\S+\s+bo@example\.com\s.*\s+-\s+yes$`).MatchString(out) {
		t.Fatalf("user list after a permanent ban: %q, %v", out, err)
	}
	out, err = runCLI(t, db.URL, "user", "admin", "ada@example.com", "--revoke")
	if err != nil || out != "ada@example.com is no longer an admin\n" {
		t.Fatalf("user admin --revoke: %q, %v", out, err)
	}
	var hasRole bool
	if err := db.Pool.QueryRow(ctx, `SELECT raw_app_meta_data ? 'role' FROM auth.users WHERE email = 'ada@example.com'`).Scan(&hasRole); err != nil || hasRole {
		t.Fatalf("role left after revoke: %v, %v", hasRole, err)
	}
	var audited int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM private.admin_audit
		WHERE action IN ('grant_admin', 'revoke_admin') AND target = 'ada@example.com'`).Scan(&audited); err != nil || audited != 2 {
		t.Errorf("audit rows: %d, %v", audited, err)
	}
	if _, err = runCLI(t, db.URL, "user", "admin", "nobody@example.com"); err == nil {
		t.Error("user admin for an unknown email succeeded")
	}
	if _, err = runCLI(t, db.URL, "user", "admin"); err == nil {
		t.Error("user admin without an email succeeded")
	}
}
