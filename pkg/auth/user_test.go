package auth

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

func TestGetUser(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("me@example.com", "pw123456")
	at := s.str("access_token")
	uid := obj(t, s.JSON, "user")["id"].(string)

	r := e.do(req{method: "GET", path: "/user", bearer: at})
	r.expect(t, 200, "")
	if r.str("id") != uid || r.str("email") != "me@example.com" || r.str("aud") != "authenticated" {
		t.Errorf("user = %s", r.Body)
	}
	if _, ok := r.JSON["identities"].([]any); !ok {
		t.Errorf("identities missing: %s", r.Body)
	}

	forged, _ := token.Sign("another-secret-another-secret-another-secret", jwt.MapClaims{
		"sub": uid, "role": "authenticated", "aud": "authenticated", "exp": e.clock.Now().Add(time.Hour).Unix(),
	})
	noSession, _ := token.Sign(testSecret, jwt.MapClaims{
		"sub": uid, "role": "authenticated", "aud": "authenticated", "exp": e.clock.Now().Add(time.Hour).Unix(),
	})
	badSub, _ := token.Sign(testSecret, jwt.MapClaims{
		"sub": "not-a-uuid", "role": "authenticated", "exp": e.clock.Now().Add(time.Hour).Unix(),
	})
	tests := []struct {
		name   string
		bearer string
		header string
		status int
		code   string
	}{
		{"valid", at, "", 200, ""},
		{"token without session_id", noSession, "", 200, ""},
		{"no bearer", "", "none", 401, "no_authorization"},
		{"basic auth", "", "Basic Zm9vOmJhcg==", 401, "no_authorization"},
		{"garbage", "garbage", "", 403, "bad_jwt"},
		{"other secret", forged, "", 403, "bad_jwt"},
		{"anon key", e.cfg.AnonKey, "", 403, "bad_jwt"},
		{"sub not a uuid", badSub, "", 403, "bad_jwt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rq := req{method: "GET", path: "/user", bearer: tc.bearer}
			switch tc.header {
			case "none":
				rq.headers = map[string]string{"Authorization": ""}
			case "":
			default:
				rq.headers = map[string]string{"Authorization": tc.header}
			}
			e.do(rq).expect(t, tc.status, tc.code)
		})
	}

	t.Run("expired", func(t *testing.T) {
		e2 := setup(t, nil)
		s := e2.signUp("exp@example.com", "pw123456")
		e2.clock.Advance(time.Hour + token.Leeway + time.Second)
		r := e2.do(req{method: "GET", path: "/user", bearer: s.str("access_token")})
		r.expect(t, 403, "bad_jwt")
		if !strings.Contains(r.str("message"), "expired") {
			t.Errorf("message = %q", r.str("message"))
		}
	})
	t.Run("session ended", func(t *testing.T) {
		e2 := setup(t, nil)
		s := e2.signUp("gone@example.com", "pw123456")
		v, _ := e2.api.verifier.Verify(s.str("access_token"))
		e2.exec(`DELETE FROM auth.sessions WHERE id = $1`, v.SessionID)
		r := e2.do(req{method: "GET", path: "/user", bearer: s.str("access_token")})
		r.expect(t, 403, "session_not_found")
	})
	t.Run("user deleted", func(t *testing.T) {
		e2 := setup(t, nil)
		s := e2.signUp("deleted@example.com", "pw123456")
		e2.exec(`DELETE FROM auth.users WHERE email = 'deleted@example.com'`)
		e2.do(req{method: "GET", path: "/user", bearer: s.str("access_token")}).expect(t, 404, "user_not_found")
	})
}

func TestUpdateUser(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("upd@example.com", "pw123456")
	at := s.str("access_token")
	other := e.signIn("upd@example.com", "pw123456") // a second session
	third := e.signUp("third@example.com", "pw123456")

	put := func(body any) *response {
		return e.do(req{method: "PUT", path: "/user", bearer: at, body: body})
	}

	// Metadata merges: new keys added, nulls remove, invite_code kept.
	r := put(map[string]any{"data": map[string]any{"display_name": "Upd", "theme": "dark"}, "code_challenge": nil})
	r.expect(t, 200, "")
	meta := obj(t, r.JSON, "user_metadata")
	if meta["display_name"] != "Upd" || meta["invite_code"] == nil {
		t.Errorf("metadata = %v", meta)
	}
	r = put(map[string]any{"data": map[string]any{"theme": nil}})
	r.expect(t, 200, "")
	if meta := obj(t, r.JSON, "user_metadata"); meta["theme"] != nil || meta["display_name"] != "Upd" {
		t.Errorf("metadata after delete = %v", meta)
	}

	tests := []struct {
		name   string
		body   any
		status int
		code   string
	}{
		{"weak password", map[string]any{"password": "123"}, 422, "weak_password"},
		{"same password", map[string]any{"password": "pw123456"}, 422, "same_password"},
		{"email taken", map[string]any{"email": "third@example.com"}, 422, "email_exists"},
		{"invalid email", map[string]any{"email": "nope"}, 400, "validation_failed"},
		{"phone", map[string]any{"phone": "+15555550100"}, 422, "phone_provider_disabled"},
		{"malformed", `{"password":`, 400, "bad_json"},
		{"data not an object", `{"data":[1]}`, 400, "bad_json"},
		{"empty body", ``, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := put(tc.body)
			r.expect(t, tc.status, tc.code)
			if tc.code == "weak_password" {
				if rs, _ := obj(t, r.JSON, "weak_password")["reasons"].([]any); len(rs) != 1 || rs[0] != "length" {
					t.Errorf("reasons = %v", rs)
				}
			}
		})
	}
	e.do(req{method: "PUT", path: "/user", body: map[string]any{"password": "new-password"}}).expect(t, 403, "bad_jwt") // anon key

	// A password change keeps this session, ends the others, and the new
	// password signs in while the old one does not.
	r = put(map[string]any{"password": "new-password", "code_challenge": nil, "code_challenge_method": nil})
	r.expect(t, 200, "")
	if r.str("email") != "upd@example.com" {
		t.Errorf("body = %s", r.Body)
	}
	e.do(req{method: "GET", path: "/user", bearer: at}).expect(t, 200, "")
	e.do(req{method: "GET", path: "/user", bearer: other.str("access_token")}).expect(t, 403, "session_not_found")
	e.refresh(other.str("refresh_token")).expect(t, 400, "refresh_token_not_found")
	e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": "upd@example.com", "password": "pw123456"}}).
		expect(t, 400, "invalid_credentials")
	e.signIn("upd@example.com", "new-password")
	e.do(req{method: "GET", path: "/user", bearer: third.str("access_token")}).expect(t, 200, "")
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'user_updated_password'`); n != 1 {
		t.Errorf("user_updated_password rows = %d", n)
	}

	// Email change applies at once and follows into the identity.
	r = put(map[string]any{"email": "Renamed@Example.com"})
	r.expect(t, 200, "")
	if r.str("email") != "renamed@example.com" {
		t.Errorf("email = %q", r.str("email"))
	}
	if n := e.count(`SELECT count(*) FROM auth.identities WHERE email = 'renamed@example.com'`); n != 1 {
		t.Errorf("identity email not updated")
	}
	e.signIn("renamed@example.com", "new-password")
}

func TestUpdateUserRateLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	at := e.signUp("rl@example.com", "pw123456").str("access_token")
	for i := 0; i < 30; i++ {
		e.do(req{method: "PUT", path: "/user", bearer: at, body: map[string]any{"password": "1"}}).expect(t, 422, "weak_password")
	}
	r := e.do(req{method: "PUT", path: "/user", bearer: at, body: map[string]any{"password": "1"}})
	r.expect(t, http.StatusTooManyRequests, "over_request_rate_limit")
	if r.Header.Get("Retry-After") != "10" {
		t.Errorf("Retry-After = %q", r.Header.Get("Retry-After"))
	}
	// GET /user is not limited.
	e.do(req{method: "GET", path: "/user", bearer: at}).expect(t, 200, "")
}
