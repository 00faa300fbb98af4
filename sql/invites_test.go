package sqlfiles_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// querier is what a sign-up runs on: a pool, a connection or a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// signUp inserts a user the way GoTrue and our gateway do, with meta as
// raw_user_meta_data.
func signUp(ctx context.Context, q querier, email string, meta map[string]any) error {
	b, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `
		INSERT INTO auth.users (id, aud, role, email, encrypted_password, raw_user_meta_data)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', $1, 'hash', $2::jsonb)`, email, string(b))
	return err
}

func withCode(code string) map[string]any { return map[string]any{"invite_code": code} }

// requireRefused fails unless err is the invite trigger's refusal.
func requireRefused(t *testing.T, err error) {
	t.Helper()
	pgErr := requirePgError(t, err, "P0001", "Invalid invite code")
	if pgErr.Detail != "invalid_invite_code" {
		t.Fatalf("detail = %q; want invalid_invite_code", pgErr.Detail)
	}
}

// invite inserts a code in a given state and returns it.
func invite(t *testing.T, db *pgtest.DB, maxUses, uses int, expiresIn time.Duration, revoked bool) string {
	t.Helper()
	code := pgtest.CreateInvite(t, db.Pool, maxUses)
	var expires any
	if expiresIn != 0 {
		expires = time.Now().Add(expiresIn)
	}
	if _, err := db.Pool.Exec(context.Background(), `
		UPDATE public.invite_codes SET uses = $2, expires_at = $3, revoked_at = CASE WHEN $4 THEN now() END
		 WHERE code = $1`, code, uses, expires, revoked); err != nil {
		t.Fatal(err)
	}
	return code
}

type inviteState struct {
	uses, redemptions int64
}

func stateOf(t *testing.T, db *pgtest.DB, code string) inviteState {
	t.Helper()
	var s inviteState
	if err := db.Pool.QueryRow(context.Background(), `
		SELECT i.uses, (SELECT count(*) FROM public.invite_redemptions r WHERE r.invite_id = i.id)
		  FROM public.invite_codes i WHERE i.code = $1`, code).Scan(&s.uses, &s.redemptions); err != nil {
		t.Fatalf("invite %q: %v", code, err)
	}
	return s
}

func usersWithEmail(t *testing.T, db *pgtest.DB, pattern string) int64 {
	t.Helper()
	var n int64
	if err := db.Pool.QueryRow(context.Background(),
		"SELECT count(*) FROM auth.users WHERE email LIKE $1", pattern).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSignUpRequiresInvite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()

	type tc struct {
		name string
		// setup returns the code to check afterwards ("" for none) and the
		// metadata to sign up with.
		setup func(t *testing.T) (code string, meta map[string]any)
		ok    bool
	}
	plain := func(code string) (string, map[string]any) { return code, withCode(code) }
	tests := []tc{
		{"no invite_code", func(t *testing.T) (string, map[string]any) { return "", map[string]any{} }, false},
		{"null invite_code", func(t *testing.T) (string, map[string]any) {
			return "", map[string]any{"invite_code": nil}
		}, false},
		{"empty invite_code", func(t *testing.T) (string, map[string]any) { return "", withCode("") }, false},
		{"blank invite_code", func(t *testing.T) (string, map[string]any) { return "", withCode("        ") }, false},
		{"numeric invite_code", func(t *testing.T) (string, map[string]any) {
			return "", map[string]any{"invite_code": 12345678}
		}, false},
		{"unknown code", func(t *testing.T) (string, map[string]any) { return "", withCode("no-such-code-at-all") }, false},
		{"expired code", func(t *testing.T) (string, map[string]any) {
			return plain(invite(t, e.db, 1, 0, -time.Minute, false))
		}, false},
		{"used-up code", func(t *testing.T) (string, map[string]any) { return plain(invite(t, e.db, 2, 2, 0, false)) }, false},
		{"revoked code", func(t *testing.T) (string, map[string]any) { return plain(invite(t, e.db, 1, 0, 0, true)) }, false},
		{"valid code", func(t *testing.T) (string, map[string]any) { return plain(invite(t, e.db, 1, 0, 0, false)) }, true},
		{"code expiring later", func(t *testing.T) (string, map[string]any) {
			return plain(invite(t, e.db, 1, 0, time.Hour, false))
		}, true},
		{"code with a use left", func(t *testing.T) (string, map[string]any) { return plain(invite(t, e.db, 3, 2, 0, false)) }, true},
		{"code with surrounding spaces", func(t *testing.T) (string, map[string]any) {
			code := invite(t, e.db, 1, 0, 0, false)
			return code, withCode("  " + code + "   ")
		}, true},
		{"code with surrounding tab and newline", func(t *testing.T) (string, map[string]any) {
			code := invite(t, e.db, 1, 0, 0, false)
			return code, withCode("\t" + code + "\r\n")
		}, true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, meta := tt.setup(t)
			var before inviteState
			if code != "" {
				before = stateOf(t, e.db, code)
			}
			email := fmt.Sprintf("signup-%d@example.com", i)
			err := signUp(ctx, e.db.Pool, email, meta)
			if !tt.ok {
				requireRefused(t, err)
				if n := usersWithEmail(t, e.db, email); n != 0 {
					t.Fatalf("%d users left behind", n)
				}
				if code != "" {
					if after := stateOf(t, e.db, code); after != before {
						t.Fatalf("refused sign-up changed the invite: %+v -> %+v", before, after)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("sign-up: %v", err)
			}
			var redeemed int64
			if err := e.db.Pool.QueryRow(ctx, `
				SELECT count(*) FROM public.invite_redemptions r
				  JOIN public.invite_codes i ON i.id = r.invite_id
				  JOIN auth.users u ON u.id = r.user_id
				 WHERE i.code = $1 AND u.email = $2`, code, email).Scan(&redeemed); err != nil {
				t.Fatal(err)
			}
			if redeemed != 1 {
				t.Fatalf("%d redemptions of %q by %s; want 1", redeemed, code, email)
			}
			if after := stateOf(t, e.db, code); after.uses != before.uses+1 || after.redemptions != before.redemptions+1 {
				t.Fatalf("invite went %+v -> %+v; want one more use and redemption", before, after)
			}
		})
	}

	t.Run("a multi-use code runs out", func(t *testing.T) {
		t.Parallel()
		code := invite(t, e.db, 3, 0, 0, false)
		for i := range 3 {
			if err := signUp(ctx, e.db.Pool, fmt.Sprintf("multi-%d@example.com", i), withCode(code)); err != nil {
				t.Fatalf("sign-up %d: %v", i, err)
			}
		}
		requireRefused(t, signUp(ctx, e.db.Pool, "multi-3@example.com", withCode(code)))
		if s := stateOf(t, e.db, code); s != (inviteState{3, 3}) {
			t.Fatalf("invite %+v; want 3 uses and 3 redemptions", s)
		}
	})

	t.Run("service_role is held to the same rule", func(t *testing.T) {
		t.Parallel()
		code := invite(t, e.db, 1, 0, 0, false)
		err := dbpkg.Tx(ctx, e.rest, service.role, service.claims, false, func(tx pgx.Tx) error {
			return signUp(ctx, tx, "admin-bad@example.com", withCode("no-such-code-at-all"))
		})
		requireRefused(t, err)
		err = dbpkg.Tx(ctx, e.rest, service.role, service.claims, false, func(tx pgx.Tx) error {
			return signUp(ctx, tx, "admin-ok@example.com", withCode(code))
		})
		if err != nil {
			t.Fatalf("service_role sign-up with a valid code: %v", err)
		}
		if s := stateOf(t, e.db, code); s != (inviteState{1, 1}) {
			t.Fatalf("invite %+v; want 1 use and 1 redemption", s)
		}
	})

	t.Run("clients cannot insert users", func(t *testing.T) {
		t.Parallel()
		code := invite(t, e.db, 1, 0, 0, false)
		for _, c := range []caller{anon, member("A", "00000000-0000-0000-0000-000000000001")} {
			err := dbpkg.Tx(ctx, e.rest, c.role, c.claims, false, func(tx pgx.Tx) error {
				return signUp(ctx, tx, "client-"+c.name+"@example.com", withCode(code))
			})
			requirePgError(t, err, "42501", "permission denied")
		}
	})
}

// TestSignUpRaceForLastUse has many sign-ups race for the last use of a
// code, each on its own connection, and checks that the code's row lock and
// re-check let exactly as many through as the code has uses.
func TestSignUpRaceForLastUse(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	const racers = 10
	conns := make([]*pgx.Conn, racers)
	for i := range conns {
		c, err := pgx.Connect(ctx, db.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		conns[i] = c
	}

	for round := range 6 {
		maxUses := 1
		if round%3 == 2 {
			maxUses = 3
		}
		code := invite(t, db, maxUses, 0, 0, false)
		start := make(chan struct{})
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i, c := range conns {
			wg.Go(func() {
				<-start
				errs[i] = signUp(ctx, c, fmt.Sprintf("race-%d-%d@example.com", round, i), withCode(code))
			})
		}
		close(start)
		wg.Wait()

		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			// Losers must see the clean refusal, not a check violation or
			// a deadlock.
			requireRefused(t, err)
		}
		if won != maxUses {
			t.Fatalf("round %d: %d of %d sign-ups got in on a %d-use code", round, won, racers, maxUses)
		}
		if s := stateOf(t, db, code); s != (inviteState{int64(maxUses), int64(maxUses)}) {
			t.Fatalf("round %d: invite %+v; want %d uses and redemptions", round, s, maxUses)
		}
		if n := usersWithEmail(t, db, fmt.Sprintf("race-%d-%%", round)); n != int64(maxUses) {
			t.Fatalf("round %d: %d users; want %d", round, n, maxUses)
		}
	}
}

// TestSignUpWaitsForTheLastUse makes the race deterministic: a second
// sign-up must wait on the first's uncommitted use, then fail if the first
// commits and succeed if it rolls back.
func TestSignUpWaitsForTheLastUse(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, db.URL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	first, second := connect(), connect()

	for _, commit := range []bool{true, false} {
		code := invite(t, db, 1, 0, 0, false)
		tx, err := first.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := signUp(ctx, tx, fmt.Sprintf("first-%v@example.com", commit), withCode(code)); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- signUp(ctx, second, fmt.Sprintf("second-%v@example.com", commit), withCode(code)) }()
		waitForLock(t, db, second.PgConn().PID())
		select {
		case err := <-done:
			t.Fatalf("second sign-up finished while the first held the code: %v", err)
		default:
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
		err = <-done
		if commit {
			requireRefused(t, err)
		} else if err != nil {
			t.Fatalf("after the first rolled back, the second sign-up failed: %v", err)
		}
		if s := stateOf(t, db, code); s != (inviteState{1, 1}) {
			t.Fatalf("commit=%v: invite %+v; want 1 use and 1 redemption", commit, s)
		}
	}
}

// waitForLock waits until the backend pid is blocked on a lock.
func waitForLock(t *testing.T, db *pgtest.DB, pid uint32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var waiting bool
		if err := db.Pool.QueryRow(context.Background(),
			"SELECT coalesce(wait_event_type = 'Lock', false) FROM pg_stat_activity WHERE pid = $1", int64(pid)).
			Scan(&waiting); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatal(err)
		}
		if waiting {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("backend %d never waited on a lock", pid)
}

func TestValidateInviteCode(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	valid := invite(t, e.db, 1, 0, 0, false)
	for _, tt := range []struct {
		name string
		code any
		want bool
	}{
		{"valid", valid, true},
		{"valid with surrounding spaces", "  " + valid + " ", true},
		{"valid with surrounding tab and newline", "\t" + valid + "\n", true},
		{"expiring later", invite(t, e.db, 1, 0, time.Hour, false), true},
		{"a use left", invite(t, e.db, 2, 1, 0, false), true},
		{"unknown", "no-such-code-at-all", false},
		{"expired", invite(t, e.db, 1, 0, -time.Second, false), false},
		{"used up", invite(t, e.db, 2, 2, 0, false), false},
		{"revoked", invite(t, e.db, 1, 0, 0, true), false},
		{"empty", "", false},
		{"null", nil, false},
		{"a LIKE pattern", "test-%", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []caller{anon, member("A", "00000000-0000-0000-0000-000000000001"), service} {
				var got map[string]any
				err := e.read(ctx, c, func(tx pgx.Tx) error {
					return tx.QueryRow(ctx, "SELECT public.validate_invite_code(code_param => $1::text)", tt.code).Scan(&got)
				})
				if err != nil {
					t.Fatalf("as %s: %v", c.name, err)
				}
				if len(got) != 1 || got["valid"] != tt.want {
					t.Fatalf("as %s: %v; want {valid: %v}", c.name, got, tt.want)
				}
			}
		})
	}

	t.Run("asking does not use the code", func(t *testing.T) {
		t.Parallel()
		code := invite(t, e.db, 1, 0, 0, false)
		for range 3 {
			var got map[string]any
			if err := e.read(ctx, anon, func(tx pgx.Tx) error {
				return tx.QueryRow(ctx, "SELECT public.validate_invite_code($1)", code).Scan(&got)
			}); err != nil || got["valid"] != true {
				t.Fatalf("got %v, %v; want valid", got, err)
			}
		}
		if s := stateOf(t, e.db, code); s != (inviteState{0, 0}) {
			t.Fatalf("invite %+v; want unused", s)
		}
	})
}
