package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/token"
)

// keys, keys rotate and keys revoke on one database, as an operator runs
// them.
func TestKeysCommands(t *testing.T) {
	db := pgtest.New(t)
	const secret = "0123456789abcdef0123456789abcdef"
	t.Setenv("JWT_SECRET", secret)
	t.Setenv("LABELBASE_DATA_DIR", t.TempDir())
	legacy := token.LegacyKeyID(secret)

	out, err := runCLI(t, db.URL, "keys")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ANON_KEY=ey", "SERVICE_ROLE_KEY=ey", "PUBLISHABLE_KEY=sb_publishable_", "SECRET_KEY=sb_secret_"} {
		if !strings.Contains(out, want) {
			t.Errorf("keys output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(legacy + `\s+HS256\s+JWT_SECRET\s+current \(legacy\)`).MatchString(out) {
		t.Fatalf("a fresh database signs with the legacy key:\n%s", out)
	}

	out, err = runCLI(t, db.URL, "keys", "rotate")
	kid := strings.TrimSpace(out)
	if err != nil || kid == "" || strings.Contains(kid, "\n") {
		t.Fatalf("keys rotate printed %q, %v; want the kid alone", out, err)
	}
	out, err = runCLI(t, db.URL, "keys", "rotate", "--alg", "RS256")
	rsKid := strings.TrimSpace(out)
	if err != nil || rsKid == kid {
		t.Fatalf("second rotate: %q, %v", out, err)
	}
	out, _ = runCLI(t, db.URL, "keys")
	if !regexp.MustCompile(rsKid+`\s+RS256\s+\S+\s+current`).MatchString(out) ||
		!regexp.MustCompile(kid+`\s+ES256\s+\S+\s+verifies`).MatchString(out) ||
		!regexp.MustCompile(legacy+`\s+HS256\s+JWT_SECRET\s+verifies \(legacy\)`).MatchString(out) {
		t.Fatalf("keys after two rotations:\n%s", out)
	}

	if out, err = runCLI(t, db.URL, "keys", "revoke", kid); err != nil || strings.TrimSpace(out) != "revoked" {
		t.Fatalf("keys revoke: %q, %v", out, err)
	}
	if out, _ = runCLI(t, db.URL, "keys"); strings.Contains(out, kid) {
		t.Fatalf("a revoked key is still listed:\n%s", out)
	}
	if _, err = runCLI(t, db.URL, "keys", "revoke", kid); err == nil || !strings.Contains(err.Error(), "no signing key") {
		t.Fatalf("revoking twice: %v", err)
	}
	if _, err = runCLI(t, db.URL, "keys", "revoke", legacy); !errors.Is(err, token.ErrLegacyKey) {
		t.Fatalf("revoking the legacy key: %v", err)
	}
	for _, args := range [][]string{{"keys", "rotate", "--alg", "HS256"}, {"keys", "revoke"}, {"keys", "sideways"}} {
		var ue usageError
		if _, err := runCLI(t, db.URL, args...); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v; want a usage error", args, err)
		}
	}
}
