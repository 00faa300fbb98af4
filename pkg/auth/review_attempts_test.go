package auth

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/mail"
)

// wrongCode is a six-digit code other than code.
func wrongCode(code string, i int) string {
	for n := i; ; n++ {
		if c := fmt.Sprintf("%06d", (n*7919+1)%1_000_000); c != code {
			return c
		}
	}
}

// Security review L3, email: after OTP_MAX_ATTEMPTS (5) wrong codes, from
// as many IPs, the mailed code is dead; fewer leave it working.
func TestEmailCodeDiesAfterWrongTries(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAIL_DEV_INBOX": "true", "SMTP_MAX_FREQUENCY": "0"}, in)
	e.signUp("m@example.com", "password1")
	guess := func(code string, i int) *response {
		return e.do(req{method: "POST", path: "/verify", ip: fmt.Sprintf("203.0.113.%d", i+1),
			body: map[string]any{"type": "email", "email": "m@example.com", "token": code}})
	}
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	_, code, _ := e.mailed(in, "m@example.com")
	for i := range 4 {
		guess(wrongCode(code, i), i).expect(t, http.StatusForbidden, codeOTPExpired)
	}
	guess(code, 9).expect(t, http.StatusOK, "") // four wrong tries leave it alive

	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	_, code, _ = e.mailed(in, "m@example.com")
	for i := range 5 {
		guess(wrongCode(code, i), i).expect(t, http.StatusForbidden, codeOTPExpired)
	}
	guess(code, 9).expect(t, http.StatusForbidden, codeOTPExpired)
	// A new code starts a new count.
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	_, code, _ = e.mailed(in, "m@example.com")
	guess(wrongCode(code, 0), 0).expect(t, http.StatusForbidden, codeOTPExpired)
	guess(code, 1).expect(t, http.StatusOK, "")
}

// Security review L3, TOTP: MFA_MAX_FAILURES (5) wrong codes in a row lock
// the factor for MFA_LOCKOUT (5 min), whatever the IP; then it works again.
func TestTOTPFactorLocksAfterFailures(t *testing.T) {
	e := setup(t, nil)
	m := e.enrollTOTP("lock@example.com")
	now := e.clock.Now()
	e.verifyFactorCode(m.access, m.factorID, m.code(t, now)).expect(t, http.StatusOK, "")
	access := e.signIn(m.email, m.password).str("access_token")
	try := func(code string, ip string) *response {
		ch := e.do(req{method: "POST", path: "/factors/" + m.factorID + "/challenge", bearer: access, ip: ip, body: map[string]any{}})
		ch.expect(t, http.StatusOK, "")
		return e.do(req{method: "POST", path: "/factors/" + m.factorID + "/verify", bearer: access, ip: ip,
			body: map[string]any{"challenge_id": ch.str("id"), "code": code}})
	}
	e.clock.Advance(30 * time.Second)
	right := m.code(t, e.clock.Now())
	for i := range 5 {
		try(wrongCode(right, i), fmt.Sprintf("198.51.100.%d", i+1)).expect(t, http.StatusUnprocessableEntity, codeMFAVerificationFailed)
	}
	locked := try(right, "198.51.100.77")
	locked.expect(t, http.StatusTooManyRequests, codeOverRequestRateLimit)
	if locked.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After")
	}
	e.clock.Advance(5*time.Minute + time.Second)
	try(m.code(t, e.clock.Now()), "198.51.100.78").expect(t, http.StatusOK, "")
}

// Issue #26 item 5, the other mailed code: the reauthentication nonce that
// PUT /user needs for a password change (with
// SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION) also dies after
// OTP_MAX_ATTEMPTS wrong tries; fewer leave it working.
func TestReauthNonceDiesAfterWrongTries(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true", "SMTP_MAX_FREQUENCY": "0"}, in)
	e.signUp("m@example.com", "password1")
	s := e.signIn("m@example.com", "password1")
	e.clock.Advance(25 * time.Hour) // the session is too old to change the password without a nonce
	tok := e.refresh(s.str("refresh_token")).str("access_token")
	tries := 0
	put := func(nonce string, i int) *response {
		tries++ // a new password each time: the same one again is refused first
		return e.do(req{method: "PUT", path: "/user", bearer: tok, ip: fmt.Sprintf("203.0.113.%d", i+1),
			body: map[string]any{"password": fmt.Sprintf("password-%d", tries), "nonce": nonce}})
	}
	e.do(req{method: "GET", path: "/reauthenticate", bearer: tok}).expect(t, http.StatusOK, "")
	_, nonce, _ := e.mailed(in, "m@example.com")
	for i := range 4 {
		put(wrongCode(nonce, i), i).expect(t, http.StatusUnprocessableEntity, codeReauthNotValid)
	}
	put(nonce, 9).expect(t, http.StatusOK, "") // four wrong tries leave it alive

	e.do(req{method: "GET", path: "/reauthenticate", bearer: tok}).expect(t, http.StatusOK, "")
	_, nonce, _ = e.mailed(in, "m@example.com")
	for i := range 5 {
		put(wrongCode(nonce, i), i).expect(t, http.StatusUnprocessableEntity, codeReauthNotValid)
	}
	put(nonce, 9).expect(t, http.StatusUnprocessableEntity, codeReauthNotValid)
}
