package auth

import (
	"net/http"
	"strings"
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

func (e *testEnv) verifyFactorCode(access, factorID, code string) *response {
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
	first := e.verifyFactorCode(m.access, m.factorID, m.code(t, now))
	first.expect(t, http.StatusOK, "")
	aal2 := first.str("access_token")

	// The same code again, even on a fresh challenge and a new sign-in, is refused.
	in := e.signIn(m.email, m.password)
	e.verifyFactorCode(in.str("access_token"), m.factorID, m.code(t, now)).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
	e.verifyFactorCode(aal2, m.factorID, m.code(t, now)).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
	// So is the previous step's, which the skew would otherwise allow.
	e.verifyFactorCode(in.str("access_token"), m.factorID, m.code(t, now.Add(-30*time.Second))).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
	// The next step's code is accepted once.
	next := m.code(t, now.Add(30*time.Second))
	e.verifyFactorCode(in.str("access_token"), m.factorID, next).expect(t, http.StatusOK, "")
	e.verifyFactorCode(aal2, m.factorID, next).expect(t, http.StatusUnprocessableEntity, "mfa_verification_failed")
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
	// Bad input is a 4xx, never a 500 or a half-written row.
	long := strings.Repeat("n", 256)
	enroll(access, map[string]any{"factor_type": "totp", "friendly_name": long}).expect(t, 400, "validation_failed")
	enroll(access, map[string]any{"factor_type": "totp", "issuer": long}).expect(t, 400, "validation_failed")
	enroll(access, map[string]any{"factor_type": "totp", "friendly_name": "nul\u0000"}).expect(t, 400, "validation_failed")
	enroll(access, map[string]any{"factor_type": "totp", "friendly_name": 7}).expect(t, 400, "bad_json")
	e.do(req{method: "POST", path: "/factors", bearer: access, body: `[{"factor_type":"totp"}]`}).expect(t, 400, "bad_json")
	if n := e.count(`SELECT count(*) FROM auth.mfa_factors`); n != 0 {
		t.Fatalf("refused enrolments left %d factors", n)
	}
	r0 := enroll(access, map[string]any{"factor_type": "totp", "friendly_name": strings.Repeat("n", 255), "issuer": strings.Repeat("i", 255)})
	r0.expect(t, 200, "")
	e.do(req{method: "DELETE", path: "/factors/" + r0.str("id"), bearer: access}).expect(t, 200, "")
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
	v := e.verifyFactorCode(access, m.factorID, m.code(t, e.clock.Now()))
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

	v := e.verifyFactorCode(m.access, m.factorID, m.code(t, e.clock.Now()))
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
	e.verifyFactorCode(m.access, m.factorID, m.code(t, e.clock.Now())).expect(t, 200, "")
	e.refresh(elsewhere.str("refresh_token")).expect(t, 400, "refresh_token_not_found")
	e.do(req{method: "GET", path: "/user", bearer: elsewhere.str("access_token")}).expect(t, 403, "session_not_found")
}
