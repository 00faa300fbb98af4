package auth

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestSignupSuccess(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	code := pgtest.CreateInvite(t, e.db.Pool, 5)
	r := e.do(req{method: "POST", path: "/signup?redirect_to=http%3A%2F%2Flocalhost%3A5173", body: map[string]any{
		"email": "  New.User@Example.COM ", "password": "pw123456",
		"data":                 map[string]any{"invite_code": code, "display_name": "Nu"},
		"gotrue_meta_security": map[string]any{}, "code_challenge": nil, "code_challenge_method": nil,
	}})
	r.expect(t, http.StatusOK, "")

	for _, k := range []string{"access_token", "refresh_token", "token_type"} {
		if r.str(k) == "" {
			t.Errorf("%s missing in %s", k, r.Body)
		}
	}
	if r.str("token_type") != "bearer" || r.JSON["expires_in"] != float64(3600) {
		t.Errorf("token_type/expires_in = %v/%v", r.JSON["token_type"], r.JSON["expires_in"])
	}
	if want := float64(e.clock.Now().Add(3600 * 1e9).Unix()); r.JSON["expires_at"] != want {
		t.Errorf("expires_at = %v, want %v", r.JSON["expires_at"], want)
	}
	u := obj(t, r.JSON, "user")
	if u["email"] != "new.user@example.com" || u["aud"] != "authenticated" || u["role"] != "authenticated" {
		t.Errorf("user = %v", u)
	}
	for _, k := range []string{"id", "email_confirmed_at", "confirmed_at", "last_sign_in_at", "created_at", "updated_at", "phone", "is_anonymous"} {
		if _, ok := u[k]; !ok {
			t.Errorf("user.%s missing", k)
		}
	}
	meta := obj(t, u, "user_metadata")
	if meta["invite_code"] != code || meta["display_name"] != "Nu" {
		t.Errorf("user_metadata = %v", meta)
	}
	if app := obj(t, u, "app_metadata"); app["provider"] != "email" {
		t.Errorf("app_metadata = %v", app)
	}
	ids, _ := u["identities"].([]any)
	if len(ids) != 1 || ids[0].(map[string]any)["provider"] != "email" || ids[0].(map[string]any)["id"] != u["id"] {
		t.Errorf("identities = %v", u["identities"])
	}

	// The access token carries GoTrue's claims and verifies.
	v, err := e.api.verifier.Verify(r.str("access_token"))
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	c := v.Claims
	if c["sub"] != u["id"] || c["aud"] != "authenticated" || c["role"] != "authenticated" ||
		c["iss"] != "http://labelbase.test/auth/v1" || c["email"] != "new.user@example.com" ||
		c["aal"] != "aal1" || c["is_anonymous"] != false || v.SessionID == "" {
		t.Errorf("claims = %v", c)
	}
	if _, ok := c["phone"]; !ok {
		t.Error("phone claim missing")
	}
	amr, _ := c["amr"].([]any)
	if len(amr) != 1 || amr[0].(map[string]any)["method"] != "password" {
		t.Errorf("amr = %v", c["amr"])
	}
	if um, _ := c["user_metadata"].(map[string]any); um["invite_code"] != code {
		t.Errorf("user_metadata claim = %v", c["user_metadata"])
	}
	var parsed jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(r.str("access_token"), &parsed); err != nil {
		t.Fatal(err)
	}

	// Rows: the hash is GoTrue's $2a$, the invite was used once, one
	// identity, one session, one live token, one audit row.
	var hash string
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT encrypted_password FROM auth.users WHERE id = $1`, u["id"]).Scan(&hash); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$2a$04$") {
		t.Errorf("hash prefix %q", hash[:7])
	}
	if n := e.count(`SELECT uses FROM public.invite_codes WHERE code = $1`, code); n != 1 {
		t.Errorf("invite uses = %d", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.identities WHERE user_id = $1 AND provider = 'email' AND provider_id = $1::text`, u["id"]); n != 1 {
		t.Errorf("identities = %d", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.refresh_tokens WHERE session_id = $1 AND NOT revoked`, v.SessionID); n != 1 {
		t.Errorf("live tokens = %d", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'user_signedup' AND payload->>'actor_id' = $1 AND payload->>'log_type' = 'team' AND payload->'traits'->>'provider' = 'email'`, u["id"]); n != 1 {
		t.Errorf("audit rows = %d", n)
	}
}

func TestSignupErrors(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	ctx := context.Background()
	pgtest.CreateUser(t, e.db.Pool, "taken@example.com", "pw123456")
	good := pgtest.CreateInvite(t, e.db.Pool, 100)
	usedUp := pgtest.CreateInvite(t, e.db.Pool, 1)
	e.signUp("first@example.com", "pw123456") // uses its own code
	e.exec(`UPDATE public.invite_codes SET uses = max_uses WHERE code = $1`, usedUp)
	expired := pgtest.CreateInvite(t, e.db.Pool, 5)
	e.exec(`UPDATE public.invite_codes SET expires_at = now() - interval '1 minute' WHERE code = $1`, expired)
	revoked := pgtest.CreateInvite(t, e.db.Pool, 5)
	e.exec(`UPDATE public.invite_codes SET revoked_at = now() WHERE code = $1`, revoked)
	_ = ctx

	body := func(email, pw string, data any) map[string]any {
		return map[string]any{"email": email, "password": pw, "data": data}
	}
	invite := func(code string) map[string]any { return map[string]any{"invite_code": code} }
	tests := []struct {
		name   string
		body   any
		status int
		code   string
		msg    string
	}{
		{"duplicate email", body("taken@example.com", "pw123456", invite(good)), 422, "user_already_exists", "User already registered"},
		{"duplicate email other case", body("TAKEN@example.com", "pw123456", invite(good)), 422, "user_already_exists", ""},
		{"weak password", body("weak@example.com", "12345", invite(good)), 422, "weak_password", "Password should be at least 6 characters."},
		{"password over 72 bytes", body("long@example.com", strings.Repeat("x", 73), invite(good)), 422, "validation_failed", ""},
		{"missing invite", body("a1@example.com", "pw123456", map[string]any{}), 422, "invalid_invite_code", "Invalid invite code"},
		{"no data at all", body("a2@example.com", "pw123456", nil), 422, "invalid_invite_code", "Invalid invite code"},
		{"unknown invite", body("a3@example.com", "pw123456", invite("no-such-code-123")), 422, "invalid_invite_code", "Invalid invite code"},
		{"expired invite", body("a4@example.com", "pw123456", invite(expired)), 422, "invalid_invite_code", "Invalid invite code"},
		{"revoked invite", body("a5@example.com", "pw123456", invite(revoked)), 422, "invalid_invite_code", "Invalid invite code"},
		{"used up invite", body("a6@example.com", "pw123456", invite(usedUp)), 422, "invalid_invite_code", "Invalid invite code"},
		{"numeric invite", body("a7@example.com", "pw123456", map[string]any{"invite_code": 12345678}), 422, "invalid_invite_code", ""},
		{"invalid email", body("not-an-email", "pw123456", invite(good)), 400, "validation_failed", "Unable to validate email address: invalid format"},
		{"email with name", body("Bob <bob@example.com>", "pw123456", invite(good)), 400, "validation_failed", ""},
		{"email without dot", body("bob@localhost", "pw123456", invite(good)), 400, "validation_failed", ""},
		// Neither email nor phone is supabase-js's signInAnonymously, which
		// GoTrue answers so when anonymous sign-ins are off.
		{"missing email", body("", "pw123456", invite(good)), 422, "anonymous_provider_disabled", "Anonymous sign-ins are disabled"},
		{"missing password", body("nopw@example.com", "", invite(good)), 400, "validation_failed", ""},
		{"empty body", "", 422, "anonymous_provider_disabled", ""},
		{"phone only", map[string]any{"phone": "+15555550100", "password": "pw123456"}, 422, "phone_provider_disabled", ""},
		{"malformed JSON", `{"email": "x@example.com",`, 400, "bad_json", ""},
		{"array body", `[1,2]`, 400, "bad_json", ""},
		{"trailing data", `{"email":"x@example.com"} {}`, 400, "bad_json", ""},
		{"data not an object", `{"email":"x@example.com","password":"pw123456","data":"oops"}`, 400, "bad_json", ""},
		{"NUL in metadata", `{"email":"nul@example.com","password":"pw123456","data":{"invite_code":"` + good + `","x":"\u0000"}}`, 400, "validation_failed", ""},
		{"email not a string", `{"email":5,"password":"pw123456"}`, 400, "bad_json", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(req{method: "POST", path: "/signup", body: tc.body})
			r.expect(t, tc.status, tc.code)
			if tc.msg != "" && r.str("message") != tc.msg {
				t.Errorf("message = %q, want %q", r.str("message"), tc.msg)
			}
			if tc.code == "weak_password" {
				wp := obj(t, r.JSON, "weak_password")
				if rs, _ := wp["reasons"].([]any); len(rs) != 1 || rs[0] != "length" {
					t.Errorf("weak_password = %v", wp)
				}
			}
		})
	}
	// Nothing above consumed a use of the good code or left a user behind.
	if n := e.count(`SELECT uses FROM public.invite_codes WHERE code = $1`, good); n != 0 {
		t.Errorf("good invite uses = %d", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.users`); n != 2 {
		t.Errorf("users = %d, want 2", n)
	}
}

func TestSignupLegacyErrorShape(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	r := e.do(req{method: "POST", path: "/signup", legacy: true, body: map[string]any{
		"email": "x@example.com", "password": "pw123456", "data": map[string]any{"invite_code": "nope-nope-nope"},
	}})
	if r.Status != 422 || r.JSON["code"] != float64(422) || r.str("error_code") != "invalid_invite_code" || r.str("msg") != "Invalid invite code" {
		t.Fatalf("legacy body = %d %s", r.Status, r.Body)
	}
}

func TestSignupDisabled(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"DISABLE_SIGNUP": "true"})
	code := pgtest.CreateInvite(t, e.db.Pool, 1)
	r := e.do(req{method: "POST", path: "/signup", body: map[string]any{
		"email": "x@example.com", "password": "pw123456", "data": map[string]any{"invite_code": code},
	}})
	r.expect(t, 422, "signup_disabled")
}

func TestSignupMinLengthFromConfig(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"PASSWORD_MIN_LENGTH": "10"})
	code := pgtest.CreateInvite(t, e.db.Pool, 1)
	r := e.do(req{method: "POST", path: "/signup", body: map[string]any{
		"email": "x@example.com", "password": "123456789", "data": map[string]any{"invite_code": code},
	}})
	r.expect(t, 422, "weak_password")
	if r.str("message") != "Password should be at least 10 characters." {
		t.Errorf("message = %q", r.str("message"))
	}
}

// Two sign-ups racing for the last use of a code: the trigger's row lock
// lets exactly one through.
func TestSignupLastInviteUseRace(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	for round := 0; round < 5; round++ {
		code := pgtest.CreateInvite(t, e.db.Pool, 1)
		var wg sync.WaitGroup
		results := make([]*response, 2)
		start := make(chan struct{})
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[i] = e.do(req{method: "POST", path: "/signup", ip: "10.0.0." + string(rune('1'+i)), body: map[string]any{
					"email": "race" + string(rune('a'+round)) + string(rune('a'+i)) + "@example.com", "password": "pw123456",
					"data": map[string]any{"invite_code": code},
				}})
			}()
		}
		close(start)
		wg.Wait()
		ok, refused := 0, 0
		for _, r := range results {
			switch {
			case r.Status == 200:
				ok++
			case r.Status == 422 && r.str("code") == "invalid_invite_code":
				refused++
			default:
				t.Errorf("unexpected %d %s", r.Status, r.Body)
			}
		}
		if ok != 1 || refused != 1 {
			t.Fatalf("round %d: %d ok, %d refused", round, ok, refused)
		}
		if n := e.count(`SELECT uses FROM public.invite_codes WHERE code = $1`, code); n != 1 {
			t.Fatalf("uses = %d", n)
		}
	}
}

func TestSignupRateLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	// Weak passwords: the limit is charged before any validation, so these
	// cost nothing but still count.
	weak := map[string]any{"email": "x@example.com", "password": "1"}
	for i := 0; i < 30; i++ {
		e.do(req{method: "POST", path: "/signup", body: weak}).expect(t, 422, "weak_password")
	}
	r := e.do(req{method: "POST", path: "/signup", body: weak})
	r.expect(t, 429, "over_request_rate_limit")
	if got := r.Header.Get("Retry-After"); got != "10" { // 30 per 300 s
		t.Errorf("Retry-After = %q, want 10", got)
	}
	// Another address has its own bucket.
	e.do(req{method: "POST", path: "/signup", body: weak, ip: "198.51.100.7"}).expect(t, 422, "weak_password")
	// Ten seconds refill one request.
	e.clock.Advance(10e9)
	e.do(req{method: "POST", path: "/signup", body: weak}).expect(t, 422, "weak_password")
	e.do(req{method: "POST", path: "/signup", body: weak}).expect(t, 429, "over_request_rate_limit")
}
