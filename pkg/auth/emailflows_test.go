package auth

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/mail"
)

var codeRE = regexp.MustCompile(`code: (\d{6})`)

// mailed is the newest mail to addr: its link (or "") and code (or "").
func (e *testEnv) mailed(in *mail.Inbox, addr string) (link, code string, n int) {
	e.t.Helper()
	e.api.WaitMail()
	for _, m := range in.Messages() {
		if m.To != addr {
			continue
		}
		if n == 0 {
			link = linkRE.FindString(m.Text)
			if c := codeRE.FindStringSubmatch(m.Text); c != nil {
				code = c[1]
			}
		}
		n++
	}
	return link, code, n
}

func (e *testEnv) verifyCode(email, code, typ string) *response {
	e.t.Helper()
	return e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": typ, "email": email, "token": code}})
}

func TestOTPMagicLinkAndCode(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")

	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "M@example.com"}}).expect(t, http.StatusOK, "")
	link, code, n := e.mailed(in, "m@example.com")
	if n != 1 || link == "" || len(code) != 6 || mustQuery(t, link).Get("type") != "magiclink" {
		t.Fatalf("mail: %q %q %d", link, code, n)
	}
	// The code signs in once; the link of the same mail went with it.
	r := e.verifyCode("m@example.com", code, "email")
	r.expect(t, http.StatusOK, "")
	if r.str("access_token") == "" || obj(t, r.JSON, "user")["email"] != "m@example.com" {
		t.Fatalf("verify: %s", r.Body)
	}
	e.verifyCode("m@example.com", code, "email").expect(t, http.StatusForbidden, codeOTPExpired)
	if _, frag := e.follow(link); frag.Get("error_code") != codeOTPExpired {
		t.Fatalf("used link: %v", frag)
	}
	// What the database holds is no link: a copy of auth.one_time_tokens
	// does not sign anyone in.
	e.clock.Advance(61 * time.Second)
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	var stored string
	if err := e.db.Pool.QueryRow(t.Context(), `SELECT token_hash FROM auth.one_time_tokens WHERE relates_to = 'm@example.com'`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": "magiclink", "token_hash": stored}}).
		expect(t, http.StatusForbidden, codeOTPExpired)
	// Again within SMTP_MAX_FREQUENCY: the same 200 as for anyone (GoTrue
	// answers members alone with a 429), nothing mailed.
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).
		expect(t, http.StatusOK, "")
	e.clock.Advance(61 * time.Second)
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	link, _, _ = e.mailed(in, "m@example.com")
	loc, frag := e.follow(link)
	if frag.Get("type") != "magiclink" || frag.Get("access_token") == "" || loc.Host != "labelbase.test" {
		t.Fatalf("link gave %s %v", loc, frag)
	}
	// GoTrue's older POST /magiclink is the same request.
	e.clock.Advance(61 * time.Second)
	e.do(req{method: "POST", path: "/magiclink", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	if _, _, n := e.mailed(in, "m@example.com"); n != 4 {
		t.Fatalf("%d mails after /magiclink", n)
	}
	// An expired code fails.
	e.clock.Advance(61 * time.Second)
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	_, code, _ = e.mailed(in, "m@example.com")
	e.clock.Advance(e.cfg.MailerOTPExp + time.Second)
	e.verifyCode("m@example.com", code, "magiclink").expect(t, http.StatusForbidden, codeOTPExpired)
}

func TestOTPCreateUser(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, nil, in)
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "new@example.com", "create_user": false}}).
		expect(t, http.StatusUnprocessableEntity, codeOTPDisabled)
	// Members-only: an unknown address needs an invite code; without one
	// it is answered as a member is, and nothing is made or mailed.
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "new@example.com"}}).
		expect(t, http.StatusOK, "")
	if _, _, n := e.mailed(in, "new@example.com"); n != 0 {
		t.Fatal("mailed an address without an invite")
	}
	if n := e.count(`SELECT count(*) FROM auth.users WHERE email = 'new@example.com'`); n != 0 {
		t.Fatal("a user was made without an invite")
	}
	for _, b := range []map[string]any{{"phone": "+15555550100"}, {"email": "a@example.com", "phone": "+1555"}, {}} {
		r := e.do(req{method: "POST", path: "/otp", body: b})
		if r.Status != http.StatusBadRequest {
			t.Errorf("%v: %d %s", b, r.Status, r.Body)
		}
	}
}

func TestInviteRuleOff(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"INVITE_REQUIRED": "false"}, in)
	r := e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "plain@example.com", "password": "password1"}})
	r.expect(t, http.StatusOK, "")
	if r.str("access_token") == "" {
		t.Fatalf("signup: %s", r.Body)
	}
	// /otp signs up an unknown address too (autoconfirm: a magic link).
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "otp@example.com", "data": map[string]any{"name": "O"}}}).
		expect(t, http.StatusOK, "")
	link, code, _ := e.mailed(in, "otp@example.com")
	if mustQuery(t, link).Get("type") != "magiclink" {
		t.Fatalf("link %s", link)
	}
	v := e.verifyCode("otp@example.com", code, "email")
	v.expect(t, http.StatusOK, "")
	if u := obj(t, v.JSON, "user"); u["email_confirmed_at"] == nil || obj(t, u, "user_metadata")["name"] != "O" {
		t.Fatalf("user %v", u)
	}
	// The rule is the gateway's: a direct insert still needs a code.
	if _, err := e.db.Pool.Exec(t.Context(), `INSERT INTO auth.users (id, email) VALUES (gen_random_uuid(), 'direct@example.com')`); err == nil ||
		!strings.Contains(err.Error(), "Invalid invite code") {
		t.Fatalf("direct insert: %v", err)
	}
}

func TestSignupWithoutAutoconfirm(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAILER_AUTOCONFIRM": "false", "INVITE_REQUIRED": "false", "MAIL_DEV_INBOX": "true"}, in)
	r := e.do(req{method: "POST", path: "/signup?redirect_to=" + url.QueryEscape("http://labelbase.test/welcome"),
		body: map[string]any{"email": "c@example.com", "password": "password1"}})
	r.expect(t, http.StatusOK, "")
	if r.str("access_token") != "" || r.str("email") != "c@example.com" || r.JSON["email_confirmed_at"] != nil || r.JSON["confirmation_sent_at"] == nil {
		t.Fatalf("signup: %s", r.Body)
	}
	e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": "c@example.com", "password": "password1"}}).
		expect(t, http.StatusBadRequest, codeEmailNotConfirmed)
	// Signing up again tells nothing: a made-up user, no session.
	again := e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "c@example.com", "password": "password2"}})
	again.expect(t, http.StatusOK, "")
	if again.str("id") == r.str("id") || again.str("access_token") != "" {
		t.Fatalf("repeat signup: %s", again.Body)
	}
	link, _, _ := e.mailed(in, "c@example.com")
	loc, frag := e.follow(link)
	if loc.Path != "/welcome" || frag.Get("type") != "signup" || frag.Get("access_token") == "" {
		t.Fatalf("confirmation went to %s %v", loc, frag)
	}
	e.signIn("c@example.com", "password1")
	// Resend: nothing to resend for a confirmed or unknown address.
	for _, addr := range []string{"c@example.com", "nobody@example.com"} {
		e.do(req{method: "POST", path: "/resend", body: map[string]any{"type": "signup", "email": addr}}).expect(t, http.StatusOK, "")
	}
	if _, _, n := e.mailed(in, "nobody@example.com"); n != 0 {
		t.Fatal("mailed an unknown address")
	}
	e.do(req{method: "POST", path: "/resend", body: map[string]any{"type": "nonsense", "email": "c@example.com"}}).
		expect(t, http.StatusBadRequest, codeValidationFailed)
	// Without autoconfirm, /otp signs a stranger up unconfirmed and mails
	// a confirmation (type signup), which verifyOtp type "email" takes.
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "o@example.com"}}).expect(t, http.StatusOK, "")
	olink, ocode, _ := e.mailed(in, "o@example.com")
	if mustQuery(t, olink).Get("type") != "signup" {
		t.Fatalf("otp link %s", olink)
	}
	e.verifyCode("o@example.com", ocode, "email").expect(t, http.StatusOK, "")
	if got := e.do(req{method: "GET", path: "/settings"}).JSON["mailer_autoconfirm"]; got != false {
		t.Errorf("settings mailer_autoconfirm = %v", got)
	}
}

func TestSecureEmailChange(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAILER_AUTOCONFIRM": "false", "MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "old@example.com", "password": "password1", "email_confirm": true})
	tok := e.signIn("old@example.com", "password1").str("access_token")
	r := e.do(req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "new@example.com"}})
	r.expect(t, http.StatusOK, "")
	if r.str("email") != "old@example.com" || r.str("new_email") != "new@example.com" {
		t.Fatalf("update: %s", r.Body)
	}
	_, oldCode, _ := e.mailed(in, "old@example.com")
	newLink, _, _ := e.mailed(in, "new@example.com")
	if oldCode == "" || newLink == "" {
		t.Fatalf("mails %+v", in.Messages())
	}
	first := e.verifyCode("old@example.com", oldCode, "email_change")
	first.expect(t, http.StatusOK, "")
	if first.str("msg") != singleConfirmationAccepted {
		t.Fatalf("first confirmation: %s", first.Body)
	}
	e.signIn("old@example.com", "password1") // not moved yet
	_, frag := e.follow(newLink)
	if frag.Get("type") != "email_change" || frag.Get("access_token") == "" {
		t.Fatalf("second confirmation: %v", frag)
	}
	e.signIn("new@example.com", "password1")
	// A taken address is refused at once.
	e.createUser(map[string]any{"email": "taken@example.com", "password": "password1", "email_confirm": true})
	tok = e.signIn("new@example.com", "password1").str("access_token")
	e.do(req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "taken@example.com"}}).
		expect(t, http.StatusUnprocessableEntity, codeEmailExists)
}

func TestReauthenticateNonce(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true"}, in)
	e.signUp("m@example.com", "password1")
	s := e.signIn("m@example.com", "password1")
	// A fresh session changes its password without a nonce.
	e.do(req{method: "PUT", path: "/user", bearer: s.str("access_token"), body: map[string]any{"password": "password2"}}).
		expect(t, http.StatusOK, "")
	e.clock.Advance(25 * time.Hour)
	tok := e.refresh(s.str("refresh_token")).str("access_token")
	put := func(body map[string]any) *response {
		return e.do(req{method: "PUT", path: "/user", bearer: tok, body: body})
	}
	put(map[string]any{"password": "password3"}).expect(t, http.StatusBadRequest, codeReauthNeeded)
	put(map[string]any{"password": "password3", "nonce": "123456"}).expect(t, http.StatusUnprocessableEntity, codeReauthNotValid)
	e.do(req{method: "GET", path: "/reauthenticate", bearer: tok}).expect(t, http.StatusOK, "")
	_, nonce, _ := e.mailed(in, "m@example.com")
	e.do(req{method: "GET", path: "/reauthenticate", bearer: tok}).expect(t, http.StatusTooManyRequests, codeOverEmailSendRateLimit)
	put(map[string]any{"password": "password3", "nonce": nonce}).expect(t, http.StatusOK, "")
	put(map[string]any{"password": "password4", "nonce": nonce}).expect(t, http.StatusUnprocessableEntity, codeReauthNotValid)
	e.do(req{method: "GET", path: "/reauthenticate"}).expect(t, http.StatusForbidden, codeBadJWT) // the anon key
}

func TestInviteAccept(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, nil, in)
	e.signUp("member@example.com", "password1")
	member := e.signIn("member@example.com", "password1").str("access_token")
	e.do(req{method: "POST", path: "/invite", bearer: member, body: map[string]any{"email": "guest@example.com"}}).
		expect(t, http.StatusForbidden, codeNotAdmin)
	r := e.admin(req{method: "POST", path: "/invite", body: map[string]any{"email": "guest@example.com", "data": map[string]any{"name": "G"}}})
	r.expect(t, http.StatusOK, "")
	if r.JSON["invited_at"] == nil || r.JSON["email_confirmed_at"] != nil {
		t.Fatalf("invite: %s", r.Body)
	}
	link, _, _ := e.mailed(in, "guest@example.com")
	_, frag := e.follow(link)
	if frag.Get("type") != "invite" || frag.Get("access_token") == "" {
		t.Fatalf("accept: %v", frag)
	}
	e.do(req{method: "PUT", path: "/user", bearer: frag.Get("access_token"), body: map[string]any{"password": "guestpass1"}}).
		expect(t, http.StatusOK, "")
	e.signIn("guest@example.com", "guestpass1")
	e.admin(req{method: "POST", path: "/invite", body: map[string]any{"email": "guest@example.com"}}).
		expect(t, http.StatusUnprocessableEntity, codeEmailExists)
	e.admin(req{method: "POST", path: "/invite", body: map[string]any{"email": "not-an-email"}}).
		expect(t, http.StatusBadRequest, codeValidationFailed)
}
