package auth

import (
	"net/http"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Issue #26 item 8: without SMTP_HOST (and without MAIL_DEV_INBOX) the
// mailing endpoints answer as GoTrue's no-op mailer lets them (the flow
// runs, nothing is sent): the answer a configured instance gives, never a
// 500 "mail is not configured". Start-up says that mail is off, and each
// mail that was due is logged as not sent.
func TestMailOffAnswersAsGoTrue(t *testing.T) {
	// MAILER_AUTOCONFIRM=false needs mail (config refuses it without), so
	// this runs with the default autoconfirm.
	e, _, logs := setupLogged(t, nil, nil)
	if !strings.Contains(logs.String(), "auth: mail is not configured") {
		t.Errorf("no start-up line about mail:\n%s", logs.String())
	}
	e.createUser(map[string]any{"email": "m@example.com", "password": "password1", "email_confirm": true})
	tok := e.signIn("m@example.com", "password1").str("access_token")
	code := pgtest.CreateInvite(t, e.db.Pool, 5)
	for _, tc := range []struct {
		name string
		r    req
	}{
		{"otp", req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}},
		{"magiclink", req{method: "POST", path: "/magiclink", body: map[string]any{"email": "m@example.com", "create_user": false}}},
		{"otp sign-up", req{method: "POST", path: "/otp", body: map[string]any{"email": "otp-new@example.com", "data": map[string]any{"invite_code": code}}}},
		{"recover", req{method: "POST", path: "/recover", body: map[string]any{"email": "m@example.com"}}},
		{"signup", req{method: "POST", path: "/signup", body: map[string]any{"email": "new@example.com", "password": "password1", "data": map[string]any{"invite_code": code}}}},
		{"resend signup", req{method: "POST", path: "/resend", body: map[string]any{"type": "signup", "email": "new@example.com"}}},
		{"reauthenticate", req{method: "GET", path: "/reauthenticate", bearer: tok}},
		{"email change", req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "moved@example.com"}}},
		{"resend email_change", req{method: "POST", path: "/resend", body: map[string]any{"type": "email_change", "email": "m@example.com"}}},
	} {
		e.clock.Advance(61e9) // past SMTP_MAX_FREQUENCY
		if r := e.do(tc.r); r.Status != http.StatusOK {
			t.Errorf("%s: %d %s, want 200 as GoTrue without SMTP", tc.name, r.Status, r.Body)
		}
	}
	if r := e.admin(req{method: "POST", path: "/invite", body: map[string]any{"email": "invited@example.com"}}); r.Status != http.StatusOK || r.str("email") != "invited@example.com" {
		t.Errorf("invite: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(logs.String(), "a mail was due but mail is off") {
		t.Errorf("no line about the mail not sent:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("mail off logged errors:\n%s", logs.String())
	}
}
