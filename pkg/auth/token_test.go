package auth

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestPasswordGrant(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	id := pgtest.CreateUser(t, e.db.Pool, "member@example.com", "pw123456")
	e.clock.Advance(time.Minute)

	r := e.signIn("Member@Example.com", "pw123456")
	if r.str("token_type") != "bearer" || r.JSON["expires_in"] != float64(3600) || r.str("refresh_token") == "" {
		t.Errorf("session = %s", r.Body)
	}
	if r.JSON["expires_at"] != float64(e.clock.Now().Unix()+3600) {
		t.Errorf("expires_at = %v", r.JSON["expires_at"])
	}
	u := obj(t, r.JSON, "user")
	if u["id"] != id {
		t.Errorf("user.id = %v, want %v", u["id"], id)
	}
	// last_sign_in_at is the time of this sign-in, in the body and the row.
	if got, _ := time.Parse(time.RFC3339Nano, u["last_sign_in_at"].(string)); !got.Equal(e.clock.Now()) {
		t.Errorf("last_sign_in_at = %v, want %v", u["last_sign_in_at"], e.clock.Now())
	}
	if n := e.count(`SELECT count(*) FROM auth.users WHERE id = $1 AND last_sign_in_at = $2`, id, e.clock.Now()); n != 1 {
		t.Error("last_sign_in_at not stored")
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'login' AND payload->>'actor_id' = $1 AND ip_address = '192.0.2.1'`, id); n != 1 {
		t.Errorf("login audit rows = %d", n)
	}
	// Each sign-in is its own session.
	e.signIn("member@example.com", "pw123456")
	if n := e.count(`SELECT count(*) FROM auth.sessions WHERE user_id = $1`, id); n != 2 {
		t.Errorf("sessions = %d", n)
	}
}

func TestPasswordGrantErrors(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	pgtest.CreateUser(t, e.db.Pool, "member@example.com", "pw123456")
	pgtest.CreateUser(t, e.db.Pool, "banned@example.com", "pw123456")
	e.exec(`UPDATE auth.users SET banned_until = now() + interval '1 day' WHERE email = 'banned@example.com'`)
	pgtest.CreateUser(t, e.db.Pool, "unconfirmed@example.com", "pw123456")
	e.exec(`UPDATE auth.users SET email_confirmed_at = NULL WHERE email = 'unconfirmed@example.com'`)
	pgtest.CreateUser(t, e.db.Pool, "nopassword@example.com", "pw123456")
	e.exec(`UPDATE auth.users SET encrypted_password = NULL WHERE email = 'nopassword@example.com'`)

	cred := func(email, pw string) map[string]any { return map[string]any{"email": email, "password": pw} }
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		code   string
		msg    string
	}{
		{"wrong password", "/token?grant_type=password", cred("member@example.com", "nope-nope"), 400, "invalid_credentials", "Invalid login credentials"},
		{"unknown email", "/token?grant_type=password", cred("ghost@example.com", "pw123456"), 400, "invalid_credentials", "Invalid login credentials"},
		{"banned user", "/token?grant_type=password", cred("banned@example.com", "pw123456"), 400, "invalid_credentials", "Invalid login credentials"},
		{"user without password", "/token?grant_type=password", cred("nopassword@example.com", ""), 400, "validation_failed", ""},
		{"user without password, some password", "/token?grant_type=password", cred("nopassword@example.com", "pw123456"), 400, "invalid_credentials", ""},
		{"unconfirmed email", "/token?grant_type=password", cred("unconfirmed@example.com", "pw123456"), 400, "email_not_confirmed", ""},
		{"missing email", "/token?grant_type=password", cred("", "pw123456"), 400, "validation_failed", ""},
		{"missing password", "/token?grant_type=password", cred("member@example.com", ""), 400, "validation_failed", ""},
		{"phone", "/token?grant_type=password", map[string]any{"phone": "+15555550100", "password": "x"}, 422, "phone_provider_disabled", ""},
		{"email and phone", "/token?grant_type=password", map[string]any{"email": "a@example.com", "phone": "+15555550100", "password": "x"}, 400, "validation_failed", ""},
		{"malformed JSON", "/token?grant_type=password", `{"email":`, 400, "bad_json", ""},
		{"password not a string", "/token?grant_type=password", `{"email":"member@example.com","password":123}`, 400, "bad_json", ""},
		{"no grant type", "/token", cred("member@example.com", "pw123456"), 400, "invalid_credentials", "unsupported_grant_type"},
		{"unknown grant type", "/token?grant_type=client_credentials", cred("member@example.com", "pw123456"), 400, "invalid_credentials", "unsupported_grant_type"},
		{"refresh without token", "/token?grant_type=refresh_token", map[string]any{}, 400, "validation_failed", ""},
		{"refresh unknown token", "/token?grant_type=refresh_token", map[string]any{"refresh_token": "no-such-token"}, 400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found"},
		{"refresh malformed", "/token?grant_type=refresh_token", `nope`, 400, "bad_json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(req{method: "POST", path: tc.path, body: tc.body})
			r.expect(t, tc.status, tc.code)
			if tc.msg != "" && r.str("message") != tc.msg {
				t.Errorf("message = %q, want %q", r.str("message"), tc.msg)
			}
		})
	}
}

// An unknown email costs a bcrypt comparison like a wrong password does, so
// response times do not reveal which emails have accounts. Without the
// dummy comparison the difference is two orders of magnitude; the bound
// is loose so a busy machine does not make the test flaky. Not parallel,
// for the same reason.
func TestPasswordGrantTiming(t *testing.T) {
	e := setup(t, map[string]string{"BCRYPT_COST": "8"})
	e.signUp("timed@example.com", "pw123456")
	measure := func(email string) time.Duration {
		best := time.Hour
		for i := 0; i < 5; i++ {
			start := time.Now()
			e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": email, "password": "wrong-password"}}).
				expect(t, 400, "invalid_credentials")
			if d := time.Since(start); d < best {
				best = d
			}
		}
		return best
	}
	wrong, unknown := measure("timed@example.com"), measure("nobody@example.com")
	t.Logf("wrong password %v, unknown email %v", wrong, unknown)
	if unknown < wrong/4 || wrong < unknown/4 {
		t.Errorf("timings differ too much: wrong password %v, unknown email %v", wrong, unknown)
	}
}

func TestRefreshRotation(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("rot@example.com", "pw123456")
	rt0 := s.str("refresh_token")
	v0, _ := e.api.verifier.Verify(s.str("access_token"))
	e.clock.Advance(time.Minute)

	r1 := e.refresh(rt0)
	r1.expect(t, 200, "")
	rt1 := r1.str("refresh_token")
	if rt1 == "" || rt1 == rt0 || r1.str("access_token") == s.str("access_token") {
		t.Fatalf("refresh did not rotate: %s", r1.Body)
	}
	if obj(t, r1.JSON, "user")["email"] != "rot@example.com" || r1.JSON["expires_at"] != float64(e.clock.Now().Unix()+3600) {
		t.Errorf("refresh body = %s", r1.Body)
	}
	v1, err := e.api.verifier.Verify(r1.str("access_token"))
	if err != nil || v1.SessionID != v0.SessionID {
		t.Fatalf("session changed: %v %v", v1, err)
	}
	// amr keeps the time of the password check, not of the refresh.
	amr := v1.Claims["amr"].([]any)[0].(map[string]any)
	if ts, _ := amr["timestamp"].(interface{ Int64() (int64, error) }); ts != nil {
		if n, _ := ts.Int64(); n != e.clock.Now().Add(-time.Minute).Unix() {
			t.Errorf("amr timestamp = %v", n)
		}
	}
	var parent string
	var revoked bool
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT parent FROM auth.refresh_tokens WHERE token = $1`, rt1).Scan(&parent); err != nil || parent != rt0 {
		t.Errorf("parent = %q (%v)", parent, err)
	}
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT revoked FROM auth.refresh_tokens WHERE token = $1`, rt0).Scan(&revoked); err != nil || !revoked {
		t.Errorf("parent not revoked")
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'token_refreshed'`); n != 1 {
		t.Errorf("token_refreshed rows = %d", n)
	}

	// Within the reuse interval the parent gets the current token back,
	// and no new token is made.
	e.clock.Advance(9 * time.Second)
	again := e.refresh(rt0)
	again.expect(t, 200, "")
	if again.str("refresh_token") != rt1 {
		t.Errorf("reuse inside interval returned %q, want current %q", again.str("refresh_token"), rt1)
	}
	if n := e.count(`SELECT count(*) FROM auth.refresh_tokens WHERE session_id = $1`, v0.SessionID); n != 2 {
		t.Errorf("tokens = %d, want 2", n)
	}
	// The current token still rotates normally.
	r2 := e.refresh(rt1)
	r2.expect(t, 200, "")
	rt2 := r2.str("refresh_token")

	// After the interval, reuse of rt0 revokes the whole session.
	e.clock.Advance(2 * time.Second) // rt0 was revoked 11 s ago
	reuse := e.refresh(rt0)
	reuse.expect(t, 400, "refresh_token_already_used")
	if reuse.str("message") != "Invalid Refresh Token: Already Used" {
		t.Errorf("message = %q", reuse.str("message"))
	}
	if n := e.count(`SELECT count(*) FROM auth.refresh_tokens WHERE session_id = $1 AND NOT revoked`, v0.SessionID); n != 0 {
		t.Errorf("live tokens after reuse = %d", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'token_revoked'`); n != 1 {
		t.Errorf("token_revoked rows = %d", n)
	}
	// ...so the token the thief or the victim holds is dead too.
	e.clock.Advance(11 * time.Second)
	e.refresh(rt2).expect(t, 400, "refresh_token_already_used")
}

// Twenty clients refreshing one token at once all stay signed in, with the
// same new token, and the session ends up with exactly one live token.
func TestRefreshConcurrent(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("race@example.com", "pw123456")
	rt0 := s.str("refresh_token")
	v0, _ := e.api.verifier.Verify(s.str("access_token"))

	const n = 20
	results := make([]*response, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = e.refresh(rt0)
		}()
	}
	close(start)
	wg.Wait()
	tokens := map[string]int{}
	for _, r := range results {
		if r.Status != http.StatusOK {
			t.Fatalf("refresh failed: %d %s", r.Status, r.Body)
		}
		tokens[r.str("refresh_token")]++
	}
	if len(tokens) != 1 {
		t.Errorf("distinct tokens handed out = %v", tokens)
	}
	if live := e.count(`SELECT count(*) FROM auth.refresh_tokens WHERE session_id = $1 AND NOT revoked`, v0.SessionID); live != 1 {
		t.Errorf("live tokens = %d, want 1", live)
	}
	if all := e.count(`SELECT count(*) FROM auth.refresh_tokens WHERE session_id = $1`, v0.SessionID); all != 2 {
		t.Errorf("tokens = %d, want 2 (parent and one child)", all)
	}
}

func TestRefreshEndedSessions(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("ended@example.com", "pw123456")
	v, _ := e.api.verifier.Verify(s.str("access_token"))

	// An expired session (not_after passed) cannot be refreshed.
	e.exec(`UPDATE auth.sessions SET not_after = $2 WHERE id = $1`, v.SessionID, e.clock.Now().Add(-time.Second))
	e.refresh(s.str("refresh_token")).expect(t, 400, "session_expired")

	// A deleted session's tokens are unknown.
	e.exec(`DELETE FROM auth.sessions WHERE id = $1`, v.SessionID)
	e.refresh(s.str("refresh_token")).expect(t, 400, "refresh_token_not_found")

	// A banned user's refresh is refused.
	s2 := e.signIn("ended@example.com", "pw123456")
	e.exec(`UPDATE auth.users SET banned_until = $1`, e.clock.Now().Add(time.Hour))
	e.refresh(s2.str("refresh_token")).expect(t, 400, "user_banned")
}

func TestTokenRateLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	bad := map[string]any{"refresh_token": "unknown"}
	for i := 0; i < 30; i++ {
		e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad}).expect(t, 400, "refresh_token_not_found")
	}
	// Unsupported grants are refused before the limit is charged.
	e.do(req{method: "POST", path: "/token?grant_type=nope", body: bad}).expect(t, 400, "invalid_credentials")
	r := e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": "a@example.com", "password": "x"}})
	r.expect(t, 429, "over_request_rate_limit")
	if got := r.Header.Get("Retry-After"); got != "2" { // 1800 per hour
		t.Errorf("Retry-After = %q, want 2", got)
	}
	e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad, ip: "203.0.113.9"}).expect(t, 400, "refresh_token_not_found")
	e.clock.Advance(2 * time.Second)
	e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad}).expect(t, 400, "refresh_token_not_found")
	e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad}).expect(t, 429, "over_request_rate_limit")
}

// Behind a trusted proxy the limit keys on the forwarded client address.
func TestTokenRateLimitTrustedProxy(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"TRUSTED_PROXY_HEADER": "X-Forwarded-For"})
	bad := map[string]any{"refresh_token": "unknown"}
	for i := 0; i < 30; i++ {
		e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad, headers: map[string]string{"X-Forwarded-For": "203.0.113.1"}}).
			expect(t, 400, "refresh_token_not_found")
	}
	e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad, headers: map[string]string{"X-Forwarded-For": "203.0.113.1"}}).
		expect(t, 429, "over_request_rate_limit")
	e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: bad, headers: map[string]string{"X-Forwarded-For": "203.0.113.2"}}).
		expect(t, 400, "refresh_token_not_found")
}
