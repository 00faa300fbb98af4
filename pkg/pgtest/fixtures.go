package pgtest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/labelbase/labelbase/pkg/migrate"
)

// CreateInvite inserts a fresh single-use invite code and returns it.
func CreateInvite(t testing.TB, pool *pgxpool.Pool, maxUses int) string {
	t.Helper()
	code := "test-" + randomHex(12)
	if _, err := pool.Exec(context.Background(),
		"INSERT INTO public.invite_codes (code, max_uses, note) VALUES ($1, $2, 'pgtest')", code, maxUses); err != nil {
		t.Fatalf("pgtest: create invite: %v", err)
	}
	return code
}

// CreateUser inserts a confirmed user with password, redeeming a fresh
// invite as a real sign-up would, and returns the user's id.
func CreateUser(t testing.TB, pool *pgxpool.Pool, email, password string) string {
	t.Helper()
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	code := CreateInvite(t, pool, 1)
	var id string
	err = pool.QueryRow(context.Background(), `
		INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at,
		                        raw_app_meta_data, raw_user_meta_data)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', lower($1), $2, now(),
		        '{"provider":"email","providers":["email"]}', jsonb_build_object('invite_code', $3::text))
		RETURNING id::text`, email, string(hash), code).Scan(&id)
	if err != nil {
		t.Fatalf("pgtest: create user: %v", err)
	}
	return id
}

// UserClaims is the request.jwt.claims JSON of a signed-in user.
func UserClaims(userID string) []byte {
	return []byte(fmt.Sprintf(`{"sub":%q,"role":"authenticated","aud":"authenticated"}`, userID))
}

// MigrationsFrom counts the migrations whose version is version or later:
// m.Steps(-MigrationsFrom(t, v)) takes a migrated database back to just
// before v, however many migrations came after it.
func MigrationsFrom(t testing.TB, version uint64) int {
	t.Helper()
	vs, err := migrate.Versions()
	if err != nil {
		t.Fatal(err)
	}
	i, _ := slices.BinarySearch(vs, version)
	if i == len(vs) {
		t.Fatalf("pgtest: no migration %d or later", version)
	}
	return len(vs) - i
}
