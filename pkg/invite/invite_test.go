package invite_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/invite"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestGenerateShapeAndUniqueness(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^[2-9a-hjkmnp-z]{4}(-[2-9a-hjkmnp-z]{4}){5}$`)
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		c, err := invite.Generate()
		if err != nil {
			t.Fatal(err)
		}
		if !shape.MatchString(c) {
			t.Fatalf("code %q has the wrong shape", c)
		}
		if seen[c] {
			t.Fatalf("duplicate code %q", c)
		}
		seen[c] = true
	}
}

func TestCreateListRevoke(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)

	a, err := invite.Create(ctx, db.Pool, invite.Options{MaxUses: 3, Note: "for Ada"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := invite.Create(ctx, db.Pool, invite.Options{MaxUses: 1, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxUses != 3 || a.Note != "for Ada" || a.ExpiresAt != nil || b.ExpiresAt == nil {
		t.Fatalf("created %+v and %+v", a, b)
	}
	now := time.Now()
	if a.Status(now) != "active" || b.Status(now.Add(2*time.Hour)) != "expired" {
		t.Errorf("statuses %s %s", a.Status(now), b.Status(now.Add(2*time.Hour)))
	}

	codes, err := invite.List(ctx, db.Pool)
	if err != nil || len(codes) != 2 || codes[0].Code != b.Code {
		t.Fatalf("list = %+v, %v (want newest first)", codes, err)
	}

	if err := invite.Revoke(ctx, db.Pool, " "+a.Code+" "); err != nil {
		t.Fatal(err)
	}
	if err := invite.Revoke(ctx, db.Pool, a.Code); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	if err := invite.Revoke(ctx, db.Pool, "no-such-code"); !errors.Is(err, invite.ErrNotFound) {
		t.Fatalf("revoke unknown = %v", err)
	}
	var valid bool
	if err := db.Pool.QueryRow(ctx, "SELECT (public.validate_invite_code($1) ->> 'valid')::boolean", a.Code).Scan(&valid); err != nil || valid {
		t.Fatalf("revoked code valid = %v, %v", valid, err)
	}
	codes, _ = invite.List(ctx, db.Pool)
	for _, c := range codes {
		if c.Code == a.Code && c.Status(time.Now()) != "revoked" {
			t.Errorf("status after revoke = %s", c.Status(time.Now()))
		}
	}
}

func TestCreateRejectsBadOptions(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	if _, err := invite.Create(context.Background(), db.Pool, invite.Options{MaxUses: 0}); err == nil {
		t.Error("zero uses accepted")
	}
	if _, err := invite.Create(context.Background(), db.Pool, invite.Options{MaxUses: 1, TTL: -time.Hour}); err == nil {
		t.Error("negative TTL accepted")
	}
}
