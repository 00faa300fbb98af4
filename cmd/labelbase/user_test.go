package main

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// The user commands go through the admin users API in process.
func TestUserCommands(t *testing.T) {
	db := pgtest.New(t)
	t.Setenv("JWT_SECRET", "cli-test-secret-cli-test-secret-0123456789")
	t.Setenv("BCRYPT_COST", "4")
	t.Setenv("SITE_URL", "http://labelbase.test")

	out, err := runCLI(t, db.URL, "user", "create", "Ada@Example.com", "--password", "password1")
	if err != nil || !strings.HasPrefix(out, "created ada@example.com (") {
		t.Fatalf("user create: %q, %v", out, err)
	}
	if _, err = runCLI(t, db.URL, "user", "create", "ada@example.com"); err == nil || !strings.Contains(err.Error(), "email_exists") {
		t.Fatalf("duplicate create: %v", err)
	}
	out, err = runCLI(t, db.URL, "user", "list")
	if err != nil || !strings.Contains(out, "ada@example.com") || !strings.Contains(out, "1 users in all") {
		t.Fatalf("user list: %q, %v", out, err)
	}
	out, err = runCLI(t, db.URL, "user", "reset-password", "ada@example.com")
	link := regexp.MustCompile(`http://labelbase\.test/auth/v1/verify\?\S+`).FindString(out)
	if err != nil || link == "" {
		t.Fatalf("reset-password: %q, %v", out, err)
	}
	u, _ := url.Parse(link)
	var n int
	if err := db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM auth.one_time_tokens
		WHERE token_type = 'recovery_token' AND token_hash <> $1`, u.Query().Get("token")).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored recovery tokens: %d, %v", n, err)
	}
	if _, err = runCLI(t, db.URL, "user", "reset-password", "nobody@example.com"); err == nil {
		t.Fatal("reset-password for an unknown email succeeded")
	}
	if out, err = runCLI(t, db.URL, "user", "ban", "ada@example.com", "--for", "1h"); err != nil || out != "banned ada@example.com\n" {
		t.Fatalf("ban: %q, %v", out, err)
	}
	if err := db.Pool.QueryRow(t.Context(), `SELECT count(*) FROM auth.users WHERE banned_until > now()`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("banned rows: %d, %v", n, err)
	}
	if _, err = runCLI(t, db.URL, "user", "ban", "ada@example.com", "--for", "soon"); err == nil {
		t.Fatal("a bad ban length was accepted")
	}
	if out, err = runCLI(t, db.URL, "user", "unban", "ada@example.com"); err != nil || out != "unbanned ada@example.com\n" {
		t.Fatalf("unban: %q, %v", out, err)
	}
	if out, err = runCLI(t, db.URL, "user", "delete", "ada@example.com"); err != nil || out != "deleted ada@example.com\n" {
		t.Fatalf("delete: %q, %v", out, err)
	}
	if _, err = runCLI(t, db.URL, "user", "delete", "ada@example.com"); err == nil {
		t.Fatal("deleting twice succeeded")
	}
	for _, args := range [][]string{{"user"}, {"user", "frobnicate", "x"}, {"user", "create"}, {"user", "ban", "a@b.c", "extra"}} {
		if _, err := runCLI(t, db.URL, args...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}
