package auth

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/server"
)

// setupLogged is setupObserved with the API's log kept in a buffer.
func setupLogged(t *testing.T, env map[string]string, in *mail.Inbox) (*testEnv, *observed, *logtest.Buffer) {
	t.Helper()
	e := setup(t, env)
	o := &observed{}
	buf := &logtest.Buffer{}
	var sender mail.Sender
	if in != nil {
		sender = in
	}
	api, err := New(Deps{Config: e.cfg, Pool: e.db.Pool, Log: slog.New(slog.NewTextHandler(buf, nil)), Now: e.clock.Now, Mailer: sender, Observe: o.add})
	if err != nil {
		t.Fatal(err)
	}
	e.api = api
	e.h = server.New(server.Deps{Config: e.cfg, Log: slog.New(slog.DiscardHandler), Ready: e.db.Pool.Ping, Auth: api.Register, Routes: api.RegisterOpen})
	return e, o, buf
}

// Issue #26 item 3 and SECURITY.md: every limit that refuses a request says
// so in the log ("auth: rate limit reached", with the limit's name) and in
// the metrics (Observe: "<limit>", "rate_limited"; the token endpoint's
// limit under its grant). Each limit here lets one request through per
// client IP and refuses the second.
func TestEveryLimitThatBitesIsLoggedAndCounted(t *testing.T) {
	in := mail.NewInbox(20)
	e, o, logs := setupLogged(t, map[string]string{"RATE_LIMIT_BURST": "1", "RATE_LIMIT_OTP": "1",
		"RATE_LIMIT_OTP_ADDRESS_PER_HOUR": "1", "RATE_LIMIT_EMAIL_SENT": "1", "MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "m@example.com", "password": "password1", "email_confirm": true})
	tok := e.signIn("m@example.com", "password1").str("access_token")
	f := e.do(req{method: "POST", path: "/factors", bearer: tok, body: map[string]any{"factor_type": "totp", "friendly_name": "phone"}})
	f.expect(t, http.StatusOK, "")
	factor := f.str("id")

	twice := func(limit string, r req) {
		t.Helper()
		e.do(r)
		if got := e.do(r); got.Status != http.StatusTooManyRequests {
			t.Errorf("%s: second request %d %s, want 429", limit, got.Status, got.Body)
		}
	}
	twice("token", req{method: "POST", path: "/token?grant_type=password", ip: "203.0.113.1",
		body: map[string]any{"email": "m@example.com", "password": "wrong-password"}})
	twice("signup", req{method: "POST", path: "/signup", ip: "203.0.113.2",
		body: map[string]any{"email": "new@example.com", "password": "password1"}})
	twice("verify", req{method: "POST", path: "/verify", ip: "203.0.113.3",
		body: map[string]any{"type": "email", "email": "m@example.com", "token": "000000"}})
	twice("user_update", req{method: "PUT", path: "/user", bearer: tok, ip: "203.0.113.4",
		body: map[string]any{"data": map[string]any{"x": 1}}})
	twice("mfa_challenge", req{method: "POST", path: "/factors/" + factor + "/challenge", bearer: tok, ip: "203.0.113.5", body: map[string]any{}})
	twice("mfa_verify", req{method: "POST", path: "/factors/" + factor + "/verify", bearer: tok, ip: "203.0.113.6",
		body: map[string]any{"challenge_id": "00000000-0000-0000-0000-000000000000", "code": "000000"}})
	// The mail limits: the first /otp sends the one mail the budget holds.
	twice("mail_ip", req{method: "POST", path: "/otp", ip: "203.0.113.7", body: map[string]any{"email": "m@example.com"}})
	e.do(req{method: "POST", path: "/recover", ip: "203.0.113.8", body: map[string]any{"email": "m@example.com"}}).
		expect(t, http.StatusTooManyRequests, codeOverEmailSendRateLimit) // mail_address
	e.do(req{method: "POST", path: "/recover", ip: "203.0.113.9", body: map[string]any{"email": "other@example.com"}}).
		expect(t, http.StatusTooManyRequests, codeOverEmailSendRateLimit) // mail_budget

	for _, limit := range []string{"token", "signup", "verify", "user_update", "mfa_challenge", "mfa_verify", "mail_ip", "mail_address", "mail_budget"} {
		if !strings.Contains(logs.String(), fmt.Sprintf(`msg="auth: rate limit reached" limit=%s `, limit)) {
			t.Errorf("limit %s bit without a log line", limit)
		}
		metric := limit + "/rate_limited"
		if limit == "token" {
			metric = "password/rate_limited"
		}
		if !o.has(metric) {
			t.Errorf("limit %s bit without a count (%s): %v", limit, metric, o.events)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", logs.String())
	}
}

// Issue #26 item 3: every mailing endpoint passes the per-IP limit
// (RATE_LIMIT_OTP, one bucket for all of them), and the per-address limit
// counts an address however it is written.
func TestMailingEndpointsShareThePerIPAndPerAddressLimits(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"RATE_LIMIT_OTP": "1", "RATE_LIMIT_OTP_ADDRESS_PER_HOUR": "2", "MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "m@example.com", "password": "password1", "email_confirm": true})
	tok := e.signIn("m@example.com", "password1").str("access_token")
	endpoints := []req{
		{method: "POST", path: "/otp", body: map[string]any{"email": "a@example.com"}},
		{method: "POST", path: "/magiclink", body: map[string]any{"email": "b@example.com"}},
		{method: "POST", path: "/recover", body: map[string]any{"email": "c@example.com"}},
		{method: "POST", path: "/resend", body: map[string]any{"type": "signup", "email": "d@example.com"}},
		{method: "GET", path: "/reauthenticate", bearer: tok},
	}
	for i, first := range endpoints {
		first.ip = fmt.Sprintf("203.0.113.%d", i+1)
		e.do(first).expect(t, http.StatusOK, "")
		for _, second := range endpoints {
			second.ip = first.ip
			if r := e.do(second); r.Status != http.StatusTooManyRequests || r.str("code") != codeOverRequestRateLimit {
				t.Errorf("after %s, %s from the same IP: %d %s", first.path, second.path, r.Status, r.Body)
			}
		}
	}
	for i, addr := range []string{"x@example.com", " X@Example.COM", "x@EXAMPLE.com "} {
		r := e.do(req{method: "POST", path: "/recover", ip: fmt.Sprintf("198.51.100.%d", i+1), body: map[string]any{"email": addr}})
		want := http.StatusOK
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if r.Status != want {
			t.Errorf("%q: %d %s, want %d", addr, r.Status, r.Body, want)
		}
	}
}

// Issue #26 item 3, the other anonymous mailing endpoints: requests that
// send nothing (unknown addresses, no invite code, nothing pending) leave
// the instance's mail budget whole; the one mail sent costs one.
func TestOnlySentMailIsCharged(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "m@example.com", "password": "password1", "email_confirm": true})
	for i, r := range []req{
		{method: "POST", path: "/otp", body: map[string]any{"email": "ghost1@example.com", "create_user": false}},
		{method: "POST", path: "/otp", body: map[string]any{"email": "ghost2@example.com"}}, // no invite code
		{method: "POST", path: "/magiclink", body: map[string]any{"email": "ghost3@example.com"}},
		{method: "POST", path: "/resend", body: map[string]any{"type": "signup", "email": "ghost4@example.com"}},
		{method: "POST", path: "/resend", body: map[string]any{"type": "email_change", "email": "m@example.com"}},
		{method: "POST", path: "/resend", body: map[string]any{"type": "signup", "email": "m@example.com"}}, // already confirmed
		{method: "POST", path: "/recover", body: map[string]any{"email": "ghost5@example.com"}},
	} {
		r.ip = fmt.Sprintf("203.0.113.%d", i+1)
		if got := e.do(r); got.Status >= 500 || got.Status == http.StatusTooManyRequests {
			t.Errorf("%s %v: %d %s", r.path, r.body, got.Status, got.Body)
		}
	}
	var tokens float64
	if err := e.db.Pool.QueryRow(t.Context(), `SELECT coalesce((SELECT tokens FROM auth.rate_limits WHERE bucket = 'email_sent'), 30)`).Scan(&tokens); err != nil || tokens < 29.99 {
		t.Errorf("budget after requests that sent nothing: %v, %v", tokens, err)
	}
	if n := len(in.Messages()); n != 0 {
		t.Errorf("%d mails sent", n)
	}
	e.do(req{method: "POST", path: "/otp", ip: "198.51.100.1", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	if err := e.db.Pool.QueryRow(t.Context(), `SELECT tokens FROM auth.rate_limits WHERE bucket = 'email_sent'`).Scan(&tokens); err != nil || tokens > 29.01 || tokens < 28.99 {
		t.Errorf("budget after one mail: %v, %v", tokens, err)
	}
}
