package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

// mfaUser is a signed-up user with an enrolled (not yet verified) TOTP
// factor.
type mfaUser struct {
	email, password string
	access, refresh string
	factorID        string
	secret          string
}

func (e *testEnv) enrollTOTP(email string) *mfaUser {
	e.t.Helper()
	s := e.signUp(email, "password1")
	m := &mfaUser{email: email, password: "password1", access: s.str("access_token"), refresh: s.str("refresh_token")}
	r := e.do(req{method: "POST", path: "/factors", bearer: m.access, body: map[string]any{"factor_type": "totp", "friendly_name": "phone"}})
	r.expect(e.t, http.StatusOK, "")
	m.factorID = r.str("id")
	m.secret = obj(e.t, r.JSON, "totp")["secret"].(string)
	return m
}

// code is the factor's TOTP code at the test clock plus offset.
func (m *mfaUser) code(t testing.TB, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(m.secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (e *testEnv) challenge(access, factorID string) *response {
	e.t.Helper()
	return e.do(req{method: "POST", path: "/factors/" + factorID + "/challenge", bearer: access, body: map[string]any{"factorId": factorID}})
}

func (e *testEnv) verifyCode(access, factorID, code string) *response {
	e.t.Helper()
	ch := e.challenge(access, factorID)
	ch.expect(e.t, http.StatusOK, "")
	return e.do(req{method: "POST", path: "/factors/" + factorID + "/verify", bearer: access,
		body: map[string]any{"challenge_id": ch.str("id"), "code": code}})
}

// claims verifies an access token and returns its aal and amr methods.
func (e *testEnv) claims(access string) (string, []string, string) {
	e.t.Helper()
	v, err := e.api.verifier.Verify(access)
	if err != nil {
		e.t.Fatalf("verify: %v", err)
	}
	var methods []string
	for _, m := range v.Claims["amr"].([]any) {
		methods = append(methods, m.(map[string]any)["method"].(string))
	}
	aal, _ := v.Claims["aal"].(string)
	return aal, methods, v.SessionID
}

func TestMFAEnrollChallengeVerify(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("two@example.com", "password1")
	access := s.str("access_token")
	r := e.do(req{method: "POST", path: "/factors", bearer: access, body: map[string]any{"factor_type": "totp", "friendly_name": "Pixel"}})
	r.expect(t, http.StatusOK, "")
	tp := obj(t, r.JSON, "totp")
	svg, _ := tp["qr_code"].(string)
	uri, _ := tp["uri"].(string)
	secret, _ := tp["secret"].(string)
	if r.str("type") != "totp" || r.str("friendly_name") != "Pixel" || !uuidRE.MatchString(r.str("id")) {
		t.Errorf("enroll body = %s", r.Body)
	}
	if !strings.HasPrefix(svg, "<svg") || !strings.HasSuffix(svg, "</svg>") || !strings.Contains(svg, "<path") {
		t.Errorf("qr_code is not an SVG: %.80s", svg)
	}
	// auth-js pastes it unescaped into data:image/svg+xml;utf-8,…: a '#'
	// would cut the image short there, a '%' start an escape.
	if strings.ContainsAny(svg, "#%") {
		t.Errorf("qr_code has characters a data: URI cannot carry raw: %.120s", svg)
	}
	// The issuer defaults to SITE_URL's host; the account is the email.
	if !strings.HasPrefix(uri, "otpauth://totp/labelbase.test:two@example.com?") || !strings.Contains(uri, "secret="+secret) || len(secret) < 16 {
		t.Errorf("uri = %q, secret = %q", uri, secret)
	}
	m := &mfaUser{secret: secret, factorID: r.str("id")}

	u := e.do(req{method: "GET", path: "/user", bearer: access})
	fs, _ := u.JSON["factors"].([]any)
	if len(fs) != 1 || fs[0].(map[string]any)["status"] != "unverified" || fs[0].(map[string]any)["factor_type"] != "totp" {
		t.Fatalf("GET /user factors = %v", u.JSON["factors"])
	}
	if strings.Contains(string(u.Body), secret) {
		t.Error("GET /user leaks the TOTP secret")
	}

	e.clock.Advance(10 * time.Second) // the user types the code
	ch := e.challenge(access, m.factorID)
	ch.expect(t, http.StatusOK, "")
	if ch.str("type") != "totp" || ch.JSON["expires_at"] != float64(e.clock.Now().Add(5*time.Minute).Unix()) {
		t.Errorf("challenge = %s", ch.Body)
	}
	v := e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: access,
		body: map[string]any{"challenge_id": ch.str("id"), "code": m.code(t, e.clock.Now())}})
	v.expect(t, http.StatusOK, "")
	aal, amr, sid := e.claims(v.str("access_token"))
	_, _, sid0 := e.claims(access)
	if aal != "aal2" || strings.Join(amr, ",") != "totp,password" || sid != sid0 {
		t.Errorf("after verify: aal %s amr %v session %s (was %s)", aal, amr, sid, sid0)
	}
	if v.str("refresh_token") == "" || v.str("refresh_token") == s.str("refresh_token") {
		t.Error("verify did not rotate the refresh token")
	}
	if f := obj(t, v.JSON, "user")["factors"].([]any)[0].(map[string]any); f["status"] != "verified" {
		t.Errorf("factor after verify = %v", f)
	}

	// A refresh keeps aal2; a new password sign-in is aal1 until its own
	// second step.
	e.clock.Advance(time.Minute)
	rf := e.refresh(v.str("refresh_token"))
	rf.expect(t, http.StatusOK, "")
	if aal, amr, _ := e.claims(rf.str("access_token")); aal != "aal2" || len(amr) != 2 {
		t.Errorf("refreshed: aal %s amr %v", aal, amr)
	}
	in := e.signIn("two@example.com", "password1")
	if aal, amr, _ := e.claims(in.str("access_token")); aal != "aal1" || strings.Join(amr, ",") != "password" {
		t.Errorf("password sign-in: aal %s amr %v", aal, amr)
	}
	if fs := obj(t, in.JSON, "user")["factors"].([]any); len(fs) != 1 {
		t.Errorf("sign-in user factors = %v", fs)
	}
	for _, action := range []string{"factor_in_progress", "challenge_created", "verification_attempted"} {
		if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = $1 AND payload->>'log_type' = 'factor'`, action); n != 1 {
			t.Errorf("%s audit rows = %d", action, n)
		}
	}
}

func TestMFACodeIsSingleUse(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("once@example.com")
	now := e.clock.Now()
	first := e.verifyCode(m.access, m.factorID, m.code(t, now))
	first.expect(t, http.StatusOK, "")
	aal2 := first.str("access_token")

	// The same code again, even on a fresh challenge and a new sign-in, is refused.
	in := e.signIn(m.email, m.password)
	e.verifyCode(in.str("access_token"), m.factorID, m.code(t, now)).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
	e.verifyCode(aal2, m.factorID, m.code(t, now)).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
	// So is the previous step's, which the skew would otherwise allow.
	e.verifyCode(in.str("access_token"), m.factorID, m.code(t, now.Add(-30*time.Second))).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
	// The next step's code is accepted once.
	next := m.code(t, now.Add(30*time.Second))
	e.verifyCode(in.str("access_token"), m.factorID, next).expect(t, http.StatusOK, "")
	e.verifyCode(aal2, m.factorID, next).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
}

func TestMFAVerifyRefusals(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("refuse@example.com")
	other := e.enrollTOTP("other@example.com")
	verify := func(factorID string, body map[string]any) *response {
		return e.do(req{method: "POST", path: "/factors/" + factorID + "/verify", bearer: m.access, body: body})
	}
	ch := e.challenge(m.access, m.factorID)
	chID := ch.str("id")
	wrong := "000000"
	if m.code(t, e.clock.Now()) == wrong {
		wrong = "111111"
	}
	verify(m.factorID, map[string]any{"challenge_id": chID, "code": wrong}).expect(t, 422, "mfa_verification_failed")
	verify(m.factorID, map[string]any{"challenge_id": chID, "code": "12345"}).expect(t, 422, "mfa_verification_failed")
	verify(m.factorID, map[string]any{"challenge_id": chID, "code": ""}).expect(t, 400, "validation_failed")
	verify(m.factorID, map[string]any{"challenge_id": "nope", "code": "123456"}).expect(t, 422, "mfa_factor_not_found")
	verify(m.factorID, map[string]any{"challenge_id": "00000000-0000-0000-0000-000000000000", "code": "123456"}).expect(t, 422, "mfa_factor_not_found")
	verify(m.factorID, map[string]any{"challenge_id": 7, "code": "123456"}).expect(t, 400, "bad_json")
	verify("not-a-uuid", map[string]any{"challenge_id": chID, "code": "123456"}).expect(t, 404, "validation_failed")
	// Another user's factor does not exist for this one.
	verify(other.factorID, map[string]any{"challenge_id": chID, "code": "123456"}).expect(t, 404, "mfa_factor_not_found")
	e.challenge(m.access, other.factorID).expect(t, 404, "mfa_factor_not_found")
	e.do(req{method: "DELETE", path: "/factors/" + other.factorID, bearer: m.access}).expect(t, 404, "mfa_factor_not_found")
	// A challenge answers from the address that made it.
	e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access, ip: "203.0.113.9",
		body: map[string]any{"challenge_id": chID, "code": m.code(t, e.clock.Now())}}).expect(t, 422, "mfa_ip_address_mismatch")
	// Without a token, or with one that has no session.
	e.do(req{method: "POST", path: "/factors", body: map[string]any{"factor_type": "totp"}}).expect(t, 403, "bad_jwt")

	// A challenge expires after five minutes and is deleted.
	e.clock.Advance(5*time.Minute + time.Second)
	verify(m.factorID, map[string]any{"challenge_id": chID, "code": m.code(t, e.clock.Now())}).expect(t, 422, "mfa_challenge_expired")
	if n := e.count(`SELECT count(*) FROM auth.mfa_challenges WHERE id = $1::uuid`, chID); n != 0 {
		t.Errorf("expired challenge kept")
	}
	// A used challenge cannot be answered twice.
	ch2 := e.challenge(m.access, m.factorID)
	body := map[string]any{"challenge_id": ch2.str("id"), "code": m.code(t, e.clock.Now())}
	verify(m.factorID, body).expect(t, 200, "")
	verify(m.factorID, body).expect(t, 422, "mfa_ip_address_mismatch")
}

func TestMFAEnrollRules(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	s := e.signUp("rules@example.com", "password1")
	access := s.str("access_token")
	enroll := func(tok string, body map[string]any) *response {
		return e.do(req{method: "POST", path: "/factors", bearer: tok, body: body})
	}
	enroll(access, map[string]any{"factor_type": "sms"}).expect(t, 400, "validation_failed")
	enroll(access, map[string]any{}).expect(t, 400, "validation_failed")
	enroll(access, map[string]any{"factor_type": "phone", "phone": "+15550100"}).expect(t, 422, "mfa_phone_enroll_not_enabled")
	enroll(access, map[string]any{"factor_type": "webauthn"}).expect(t, 422, "mfa_webauthn_enroll_not_enabled")
	enroll(access, map[string]any{"factor_type": "totp", "friendly_name": "Work"}).expect(t, 200, "")
	enroll(access, map[string]any{"factor_type": "totp", "friendly_name": "Work"}).expect(t, 422, "mfa_factor_name_conflict")
	for i := 0; i < 9; i++ {
		enroll(access, map[string]any{"factor_type": "totp"}).expect(t, 200, "")
	}
	enroll(access, map[string]any{"factor_type": "totp"}).expect(t, 422, "too_many_enrolled_mfa_factors")
	// Setups never challenged are dropped after five minutes.
	e.clock.Advance(5*time.Minute + time.Second)
	r := enroll(access, map[string]any{"factor_type": "totp", "friendly_name": "Phone"})
	r.expect(t, 200, "")
	if n := e.count(`SELECT count(*) FROM auth.mfa_factors`); n != 1 {
		t.Fatalf("factors after expiry = %d", n)
	}
	m := &mfaUser{factorID: r.str("id"), secret: obj(t, r.JSON, "totp")["secret"].(string)}
	v := e.verifyCode(access, m.factorID, m.code(t, e.clock.Now()))
	v.expect(t, 200, "")
	// Once a factor is verified, an aal1 session may not add another.
	in := e.signIn("rules@example.com", "password1")
	enroll(in.str("access_token"), map[string]any{"factor_type": "totp", "friendly_name": "Thief"}).expect(t, 403, "insufficient_aal")
	enroll(v.str("access_token"), map[string]any{"factor_type": "totp", "friendly_name": "Tablet"}).expect(t, 200, "")
}

func TestMFAUnenroll(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("leave@example.com")
	// An unverified factor goes with an aal1 session.
	r := e.do(req{method: "POST", path: "/factors", bearer: m.access, body: map[string]any{"factor_type": "totp", "friendly_name": "spare"}})
	e.do(req{method: "DELETE", path: "/factors/" + r.str("id"), bearer: m.access}).expect(t, 200, "")

	v := e.verifyCode(m.access, m.factorID, m.code(t, e.clock.Now()))
	v.expect(t, 200, "")
	in := e.signIn(m.email, m.password)
	e.do(req{method: "DELETE", path: "/factors/" + m.factorID, bearer: in.str("access_token")}).expect(t, 422, "insufficient_aal")
	d := e.do(req{method: "DELETE", path: "/factors/" + m.factorID, bearer: v.str("access_token")})
	d.expect(t, 200, "")
	if d.str("id") != m.factorID {
		t.Errorf("unenroll body = %s", d.Body)
	}
	// The session the factor raised is aal1 again from its next refresh.
	rf := e.refresh(v.str("refresh_token"))
	rf.expect(t, 200, "")
	if aal, amr, _ := e.claims(rf.str("access_token")); aal != "aal1" || strings.Join(amr, ",") != "password" {
		t.Errorf("after unenroll: aal %s amr %v", aal, amr)
	}
	if _, ok := obj(t, rf.JSON, "user")["factors"]; ok {
		t.Errorf("factors still listed: %s", rf.Body)
	}
	if n := e.count(`SELECT count(*) FROM auth.sessions WHERE aal = 'aal2'`); n != 0 {
		t.Errorf("aal2 sessions left: %d", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'factor_unenrolled'`); n != 2 {
		t.Errorf("factor_unenrolled rows = %d", n)
	}
}

func TestMFAVerifyEndsPasswordOnlySessions(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("ends@example.com")
	elsewhere := e.signIn(m.email, m.password)
	e.verifyCode(m.access, m.factorID, m.code(t, e.clock.Now())).expect(t, 200, "")
	e.refresh(elsewhere.str("refresh_token")).expect(t, 400, "refresh_token_not_found")
	e.do(req{method: "GET", path: "/user", bearer: elsewhere.str("access_token")}).expect(t, 403, "session_not_found")
}

func TestMFARateLimit(t *testing.T) {
	t.Parallel()
	e := setup(t, nil) // GoTrue's defaults: 15 a minute, bursts of 30
	m := e.enrollTOTP("brute@example.com")
	ch := e.challenge(m.access, m.factorID)
	right := m.code(t, e.clock.Now())
	tried := 0
	for code := 100000; tried < 30; code++ {
		guess := fmt.Sprintf("%06d", code)
		if guess == right {
			continue
		}
		e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access,
			body: map[string]any{"challenge_id": ch.str("id"), "code": guess}}).expect(t, 422, "mfa_verification_failed")
		tried++
	}
	body := map[string]any{"challenge_id": ch.str("id"), "code": right}
	r := e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access, body: body})
	r.expect(t, 429, "over_request_rate_limit")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// Another address has its own bucket; this one refills at 15 a minute.
	e.do(req{method: "POST", path: "/factors/" + m.factorID + "/challenge", bearer: m.access, ip: "198.51.100.7"}).expect(t, 200, "")
	e.clock.Advance(4 * time.Second)
	e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: m.access, body: body}).expect(t, 200, "")
}

func TestMFAAdminFactors(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("lost@example.com")
	v := e.verifyCode(m.access, m.factorID, m.code(t, e.clock.Now()))
	v.expect(t, 200, "")
	uid := obj(t, v.JSON, "user")["id"].(string)

	l := e.admin(req{method: "GET", path: "/admin/users/" + uid + "/factors"})
	l.expect(t, 200, "")
	if !strings.HasPrefix(string(l.Body), "[") || !strings.Contains(string(l.Body), `"status":"verified"`) || strings.Contains(string(l.Body), m.secret) {
		t.Errorf("admin factors = %s", l.Body)
	}
	e.do(req{method: "GET", path: "/admin/users/" + uid + "/factors", bearer: m.access}).expect(t, 403, "not_admin")
	e.admin(req{method: "GET", path: "/admin/users/00000000-0000-0000-0000-000000000001/factors"}).expect(t, 404, "user_not_found")
	e.admin(req{method: "DELETE", path: "/admin/users/" + uid + "/factors/00000000-0000-0000-0000-000000000001"}).expect(t, 404, "mfa_factor_not_found")
	e.do(req{method: "DELETE", path: "/admin/users/" + uid + "/factors/" + m.factorID, bearer: m.access}).expect(t, 403, "not_admin")

	d := e.admin(req{method: "DELETE", path: "/admin/users/" + uid + "/factors/" + m.factorID})
	d.expect(t, 200, "")
	if d.str("id") != m.factorID || d.str("factor_type") != "totp" {
		t.Errorf("admin delete body = %s", d.Body)
	}
	empty := e.admin(req{method: "GET", path: "/admin/users/" + uid + "/factors"})
	if strings.TrimSpace(string(empty.Body)) != "[]" {
		t.Errorf("after delete = %s", empty.Body)
	}
	if aal, _, _ := e.claims(e.refresh(v.str("refresh_token")).str("access_token")); aal != "aal1" {
		t.Errorf("session still %s after the admin removed its factor", aal)
	}
	var action string
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT payload->>'actor_username' FROM auth.audit_log_entries
		WHERE payload->>'action' = 'factor_deleted'`).Scan(&action); err != nil || action != "service_role" {
		t.Errorf("factor_deleted audit: %q %v", action, err)
	}
}

// RFC 6238 appendix B's SHA-1 vectors, cut to six digits: the library
// and the step search agree with the standard, not only with each other.
func TestAcceptTOTPVectors(t *testing.T) {
	const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ" // "12345678901234567890"
	for _, c := range []struct {
		unix int64
		code string
	}{{59, "287082"}, {1111111109, "081804"}, {1234567890, "005924"}, {2000000000, "279037"}} {
		step, ok := acceptTOTP(secret, c.code, time.Unix(c.unix, 0), nil)
		if !ok || step != c.unix/30 {
			t.Errorf("T=%d: step %d ok %v", c.unix, step, ok)
		}
		last := c.unix / 30
		if _, ok := acceptTOTP(secret, c.code, time.Unix(c.unix, 0), &last); ok {
			t.Errorf("T=%d: accepted a used step", c.unix)
		}
	}
	for _, bad := range []string{"", "28708", "2870822", "28708a", " 87082"} {
		if _, ok := acceptTOTP(secret, bad, time.Unix(59, 0), nil); ok {
			t.Errorf("accepted %q", bad)
		}
	}
}

// GoTrue's rule: with a verified factor, an aal1 session may not change
// the password or the email (a stolen password must not lock the owner
// out); metadata and an aal2 session are fine.
func TestMFACredentialsNeedAAL2(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("creds@example.com")
	// Before the factor is verified nothing changes.
	e.do(req{method: "PUT", path: "/user", bearer: m.access, body: map[string]any{"data": map[string]any{"n": 1}}}).expect(t, 200, "")
	v := e.verifyCode(m.access, m.factorID, m.code(t, e.clock.Now()))
	v.expect(t, 200, "")
	weak := e.signIn(m.email, m.password).str("access_token")
	e.do(req{method: "PUT", path: "/user", bearer: weak, body: map[string]any{"password": "new-password-1"}}).expect(t, 401, "insufficient_aal")
	e.do(req{method: "PUT", path: "/user", bearer: weak, body: map[string]any{"email": "thief@example.com"}}).expect(t, 401, "insufficient_aal")
	e.do(req{method: "PUT", path: "/user", bearer: weak, body: map[string]any{"email": "creds@example.com", "data": map[string]any{"n": 2}}}).expect(t, 200, "")
	e.do(req{method: "PUT", path: "/user", bearer: v.str("access_token"), body: map[string]any{"password": "new-password-1"}}).expect(t, 200, "")
	e.signIn(m.email, "new-password-1")
}

// Sessions presenting the same code at once: exactly one passes and the
// others meet the used step (no replay through a race: the factor's row
// lock serialises them, and the step's compare-and-set, tested on its own
// below, would refuse them anyway). The sessions are aal2 already,
// so that none is ended by the winner and each loser is refused for its
// code alone.
func TestMFAConcurrentReplay(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("race@example.com")
	e.verifyCode(m.access, m.factorID, m.code(t, e.clock.Now())).expect(t, 200, "")
	var sessions []string
	for range 4 {
		e.clock.Advance(30 * time.Second)
		access := e.signIn(m.email, m.password).str("access_token")
		v := e.verifyCode(access, m.factorID, m.code(t, e.clock.Now()))
		v.expect(t, 200, "")
		sessions = append(sessions, v.str("access_token"))
	}
	e.clock.Advance(30 * time.Second)
	code := m.code(t, e.clock.Now())
	var challenges []string
	for _, access := range sessions {
		ch := e.challenge(access, m.factorID)
		ch.expect(t, 200, "")
		challenges = append(challenges, ch.str("id"))
	}
	statuses := make(chan *response, len(sessions))
	var wg sync.WaitGroup
	for i, access := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses <- e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: access,
				body: map[string]any{"challenge_id": challenges[i], "code": code}})
		}()
	}
	wg.Wait()
	close(statuses)
	counts := map[string]int{}
	for r := range statuses {
		counts[fmt.Sprint(r.Status, r.str("code"))]++
	}
	if counts["200"] != 1 || counts["422mfa_verification_failed"] != len(sessions)-1 {
		t.Errorf("outcomes = %v, want one 200 and the rest 422 mfa_verification_failed", counts)
	}
}

// The step only moves forward in the database itself, whatever the caller
// read before: a second acceptance of the same (or an older) step fails.
func TestConsumeChallengeComparesAndSets(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	m := e.enrollTOTP("cas@example.com")
	ctx := context.Background()
	now := e.clock.Now()
	for _, c := range []struct {
		step int64
		want error
	}{{100, nil}, {100, errStepUsed}, {99, errStepUsed}, {101, nil}} {
		id := e.challenge(m.access, m.factorID).str("id")
		err := consumeChallenge(ctx, e.db.Pool, &challenge{ID: id, FactorID: m.factorID}, c.step, now)
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("step %d: err = %v, want %v", c.step, err, c.want)
		}
	}
}
