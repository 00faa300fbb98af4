package auth

import (
	"testing"
)

func TestLogout(t *testing.T) {
	t.Parallel()
	type sessions struct{ a, b, c *response }
	start := func(t *testing.T) (*testEnv, sessions) {
		e := setup(t, nil)
		a := e.signUp("out@example.com", "pw123456")
		return e, sessions{a, e.signIn("out@example.com", "pw123456"), e.signIn("out@example.com", "pw123456")}
	}
	alive := func(e *testEnv, s *response) bool {
		return e.do(req{method: "GET", path: "/user", bearer: s.str("access_token")}).Status == 200
	}
	tests := []struct {
		name           string
		query          string
		wantA, wantB   bool // a logs out; b and c are other sessions
		wantStatus     int
		wantCode       string
		wantAuditScope string
	}{
		{"default is global", "", false, false, 204, "", "global"},
		{"global", "?scope=global", false, false, 204, "", "global"},
		{"local", "?scope=local", false, true, 204, "", "local"},
		{"others", "?scope=others", true, false, 204, "", "others"},
		{"unknown scope", "?scope=everything", true, true, 400, "validation_failed", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, s := start(t)
			r := e.do(req{method: "POST", path: "/logout" + tc.query, bearer: s.a.str("access_token"),
				headers: map[string]string{"Content-Type": "application/json;charset=UTF-8"}})
			r.expect(t, tc.wantStatus, tc.wantCode)
			if tc.wantStatus == 204 && len(r.Body) != 0 {
				t.Errorf("body = %q", r.Body)
			}
			if got := alive(e, s.a); got != tc.wantA {
				t.Errorf("own session alive = %v, want %v", got, tc.wantA)
			}
			for _, o := range []*response{s.b, s.c} {
				if got := alive(e, o); got != tc.wantB {
					t.Errorf("other session alive = %v, want %v", got, tc.wantB)
				}
			}
			if !tc.wantA {
				e.do(req{method: "GET", path: "/user", bearer: s.a.str("access_token")}).expect(t, 403, "session_not_found")
				e.refresh(s.a.str("refresh_token")).expect(t, 400, "refresh_token_not_found")
			}
			if tc.wantAuditScope != "" {
				if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'logout' AND payload->'traits'->>'scope' = $1`, tc.wantAuditScope); n != 1 {
					t.Errorf("logout audit rows = %d", n)
				}
			}
		})
	}
	t.Run("twice", func(t *testing.T) {
		t.Parallel()
		e, s := start(t)
		e.do(req{method: "POST", path: "/logout", bearer: s.a.str("access_token")}).expect(t, 204, "")
		// supabase-js clears its session on 403 too.
		e.do(req{method: "POST", path: "/logout", bearer: s.a.str("access_token")}).expect(t, 403, "session_not_found")
	})
	t.Run("no token", func(t *testing.T) {
		t.Parallel()
		e, _ := start(t)
		e.do(req{method: "POST", path: "/logout", headers: map[string]string{"Authorization": ""}}).expect(t, 401, "no_authorization")
		e.do(req{method: "POST", path: "/logout"}).expect(t, 403, "bad_jwt") // the anon key
	})
}
