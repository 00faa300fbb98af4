package auth

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/mail"
)

var linkRE = regexp.MustCompile(`http://labelbase\.test/auth/v1/verify\?\S+`)

// recoverMail asks for a recovery mail and returns the links mailed so far
// to email, newest first.
func (e *testEnv) recoverMail(in *mail.Inbox, email string, query string) []string {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/recover" + query, body: map[string]any{"email": email, "gotrue_meta_security": map[string]any{}}})
	r.expect(e.t, http.StatusOK, "")
	if string(r.Body) != "{}\n" && string(r.Body) != "{}" {
		e.t.Fatalf("recover answered %q", r.Body)
	}
	e.api.WaitMail()
	var links []string
	for _, m := range in.Messages() {
		if m.To == email {
			links = append(links, linkRE.FindString(m.Text))
		}
	}
	return links
}

// follow opens a mailed link as a browser does (no API key) and returns
// the redirect's fragment.
func (e *testEnv) follow(link string) (*url.URL, url.Values) {
	e.t.Helper()
	r := e.do(req{method: "GET", path: strings.TrimPrefix(link, "http://labelbase.test/auth/v1"), noKey: true})
	r.expect(e.t, http.StatusSeeOther, "")
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	frag, err := url.ParseQuery(loc.Fragment)
	if err != nil {
		e.t.Fatal(err)
	}
	return loc, frag
}

func TestRecoveryEndToEnd(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")
	old := e.signIn("m@example.com", "password1").str("refresh_token")

	links := e.recoverMail(in, "m@example.com", "?redirect_to="+url.QueryEscape("http://labelbase.test/reset-password"))
	if len(links) != 1 || links[0] == "" {
		t.Fatalf("links %v in %+v", links, in.Messages())
	}
	tok := mustQuery(t, links[0]).Get("token")
	if n := e.count(`SELECT count(*) FROM auth.one_time_tokens WHERE token_hash LIKE '%' || $1 || '%'`, tok); n != 0 {
		t.Fatal("the token is stored in the clear")
	}
	if n := e.count(`SELECT count(*) FROM auth.one_time_tokens WHERE token_type = 'recovery_token' AND relates_to = 'm@example.com'`); n != 1 {
		t.Fatalf("%d stored recovery tokens", n)
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'user_recovery_requested'`); n != 1 {
		t.Errorf("%d recovery audit entries", n)
	}

	loc, frag := e.follow(links[0])
	if loc.Host != "labelbase.test" || loc.Path != "/reset-password" {
		t.Errorf("redirected to %s", loc)
	}
	if frag.Get("type") != "recovery" || frag.Get("token_type") != "bearer" || frag.Get("refresh_token") == "" || frag.Get("expires_in") == "" {
		t.Fatalf("fragment %v", frag)
	}
	access := frag.Get("access_token")
	e.do(req{method: "PUT", path: "/user", bearer: access, body: map[string]any{"password": "password2"}}).expect(t, http.StatusOK, "")
	e.signIn("m@example.com", "password2")
	// The new password ended the session that knew the old one.
	e.refresh(old).expect(t, http.StatusBadRequest, codeRefreshTokenNotFound)

	// Used once: the same link now lands on the site with GoTrue's error.
	_, frag = e.follow(links[0])
	if frag.Get("error") != "access_denied" || frag.Get("error_code") != codeOTPExpired || frag.Get("access_token") != "" {
		t.Fatalf("reused link gave %v", frag)
	}
}

func TestRecoveryDoesNotTellWhoIsAMember(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")
	e.createUser(map[string]any{"email": "banned@example.com", "email_confirm": true, "ban_duration": "100h"})
	if links := e.recoverMail(in, "stranger@example.com", ""); len(links) != 0 {
		t.Fatalf("mailed a stranger: %v", links)
	}
	if links := e.recoverMail(in, "banned@example.com", ""); len(links) != 0 {
		t.Fatalf("mailed a banned member: %v", links)
	}
	if len(in.Messages()) != 0 {
		t.Fatalf("inbox: %+v", in.Messages())
	}
	for _, body := range []any{map[string]any{}, map[string]any{"email": "nope"}, `[]`} {
		r := e.do(req{method: "POST", path: "/recover", body: body})
		if r.Status != 400 {
			t.Errorf("%v: status %d", body, r.Status)
		}
	}
}

func TestRecoveryLinkExpiresAndIsReplaced(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, map[string]string{"MAILER_OTP_EXP": "600", "SMTP_MAX_FREQUENCY": "60"}, in)
	e.signUp("m@example.com", "password1")
	first := e.recoverMail(in, "m@example.com", "")
	// Within SMTP_MAX_FREQUENCY: the same answer, no second mail.
	if again := e.recoverMail(in, "m@example.com", ""); len(again) != 1 {
		t.Fatalf("mailed again at once: %v", again)
	}
	e.clock.Advance(61 * time.Second)
	second := e.recoverMail(in, "m@example.com", "")
	if len(second) != 2 {
		t.Fatalf("links %v", second)
	}
	// Only the newest link works.
	if _, frag := e.follow(first[0]); frag.Get("error_code") != codeOTPExpired {
		t.Errorf("replaced link: %v", frag)
	}
	e.clock.Advance(601 * time.Second)
	if _, frag := e.follow(second[0]); frag.Get("error_code") != codeOTPExpired {
		t.Errorf("expired link: %v", frag)
	}
	// Foreign redirect_to falls back to the site.
	e.clock.Advance(61 * time.Second)
	third := e.recoverMail(in, "m@example.com", "?redirect_to="+url.QueryEscape("https://evil.example/x"))
	if got := mustQuery(t, third[0]).Get("redirect_to"); got != "http://labelbase.test" {
		t.Errorf("redirect_to = %q", got)
	}
	loc, frag := e.follow(third[0])
	if loc.Host != "labelbase.test" || frag.Get("access_token") == "" {
		t.Errorf("went to %s with %v", loc, frag)
	}
	// Bad requests to /verify.
	// A link of another type, or of an unknown one, lands on the site with
	// GoTrue's error triple; a link without a token is refused outright.
	if _, frag := e.follow("http://labelbase.test/auth/v1/verify?type=signup&token=x"); frag.Get("error_code") != codeOTPExpired {
		t.Errorf("signup link: %v", frag)
	}
	if _, frag := e.follow("http://labelbase.test/auth/v1/verify?type=nonsense&token=x"); frag.Get("error_code") != codeValidationFailed {
		t.Errorf("unknown type: %v", frag)
	}
	e.do(req{method: "GET", path: "/verify?type=recovery"}).expect(t, http.StatusBadRequest, codeValidationFailed)
	if _, frag := e.follow("http://labelbase.test/auth/v1/verify?type=recovery&token=" + strings.Repeat("a", 500)); frag.Get("error") != "access_denied" {
		t.Errorf("long token: %v", frag)
	}
}

func TestRecoveryVerifyOtpTokenHash(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")
	tok := mustQuery(t, e.recoverMail(in, "m@example.com", "")[0]).Get("token")
	r := e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": "recovery", "token_hash": tok}})
	r.expect(t, http.StatusOK, "")
	if r.str("access_token") == "" || obj(t, r.JSON, "user")["email"] != "m@example.com" {
		t.Fatalf("verify: %s", r.Body)
	}
	e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": "recovery", "token_hash": tok}}).
		expect(t, http.StatusForbidden, codeOTPExpired)
	e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": "recovery", "email": "m@example.com", "token": "123456"}}).
		expect(t, http.StatusForbidden, codeOTPExpired)
	e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": "signup", "token_hash": tok}}).
		expect(t, http.StatusForbidden, codeOTPExpired)
	e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": "nonsense", "token_hash": tok}}).
		expect(t, http.StatusBadRequest, codeValidationFailed)
}

func TestRecoveryRateLimit(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, map[string]string{"RATE_LIMIT_EMAIL_SENT": "2"}, in)
	for _, m := range []string{"m@example.com", "a@example.com", "b@example.com"} {
		e.signUp(m, "password1")
	}
	e.recoverMail(in, "a@example.com", "")
	e.recoverMail(in, "b@example.com", "")
	// The budget is spent: every address, member or not, gets the same 429.
	for _, addr := range []string{"m@example.com", "nobody@example.com"} {
		r := e.do(req{method: "POST", path: "/recover", body: map[string]any{"email": addr}})
		r.expect(t, http.StatusTooManyRequests, codeOverEmailSendRateLimit)
	}
	e.api.WaitMail()
	if len(in.Messages()) != 2 {
		t.Fatalf("mailed over the limit: %+v", in.Messages())
	}
	e.clock.Advance(31 * time.Minute)
	if links := e.recoverMail(in, "m@example.com", ""); len(links) != 1 {
		t.Fatalf("after refill: %v", links)
	}
}

func TestRecoveryMailOff(t *testing.T) {
	e := setupMail(t, nil, nil)
	e.signUp("m@example.com", "password1")
	r := e.do(req{method: "POST", path: "/recover", body: map[string]any{"email": "m@example.com"}})
	r.expect(t, http.StatusOK, "")
	// As GoTrue's no-op mailer: the flow runs, nothing is sent, and the
	// instance's mail budget is not touched.
	if n := e.count(`SELECT count(*) FROM auth.rate_limits WHERE bucket = 'email_sent'`); n != 0 {
		t.Fatal("mail off charged the mail budget")
	}
}

func TestAdminGenerateRecoveryLink(t *testing.T) {
	e := setupMail(t, nil, nil)
	e.signUp("m@example.com", "password1")
	r := e.admin(req{method: "POST", path: "/admin/generate_link", body: map[string]any{"type": "recovery", "email": "m@example.com"}})
	r.expect(t, http.StatusOK, "")
	if r.str("verification_type") != "recovery" || r.str("email") != "m@example.com" || !strings.Contains(r.str("action_link"), "/auth/v1/verify?") {
		t.Fatalf("generate_link: %s", r.Body)
	}
	if _, frag := e.follow(r.str("action_link")); frag.Get("access_token") == "" {
		t.Fatalf("link gave %v", frag)
	}
	e.admin(req{method: "POST", path: "/admin/generate_link", body: map[string]any{"type": "recovery", "email": "x@example.com"}}).
		expect(t, http.StatusNotFound, codeUserNotFound)
	e.admin(req{method: "POST", path: "/admin/generate_link", body: map[string]any{"type": "signup", "email": "m@example.com"}}).
		expect(t, http.StatusBadRequest, codeValidationFailed)
}

func mustQuery(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// A member who closes the page right after asking for a reset link still
// gets it: the client going away does not cancel the token's transaction
// (before, the request failed with a 500 and no mail went out).
func TestRecoverFinishesWhenTheClientLeaves(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, nil, in)
	e.signUp("leaver@example.com", "password1")
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	r := e.do(req{method: "POST", path: "/recover", body: map[string]any{"email": "leaver@example.com"}, ctx: gone})
	if r.Status >= 500 {
		t.Errorf("recover for a client that left: %d %s", r.Status, r.Body)
	}
	if link, code, n := e.mailed(in, "leaver@example.com"); n != 1 || link == "" || code == "" {
		t.Fatalf("mails after the client left: %d (link %q, code %q)", n, link, code)
	}
}
