package auth

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/mail"
)

// Guessing a six-digit code is bounded by RATE_LIMIT_VERIFY per client:
// past it even the right code is refused, and a wrong guess does not burn
// the member's code for anyone else.
func TestOTPBruteForceIsRateLimited(t *testing.T) {
	in := mail.NewInbox(50)
	// The per-code cap (TestEmailCodeDiesAfterWrongTries) is raised out of the way.
	e := setupMail(t, map[string]string{"RATE_LIMIT_VERIFY": "5", "RATE_LIMIT_BURST": "5", "OTP_MAX_ATTEMPTS": "100"}, in)
	e.signUp("m@example.com", "password1")
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	_, code, _ := e.mailed(in, "m@example.com")
	wrong := "000000"
	if code == wrong {
		wrong = "000001"
	}
	attacker := func(c string) *response {
		return e.do(req{method: "POST", path: "/verify", ip: "198.51.100.7",
			body: map[string]any{"type": "email", "email": "m@example.com", "token": c}})
	}
	for i := 0; i < 5; i++ {
		attacker(wrong).expect(t, http.StatusForbidden, codeOTPExpired)
	}
	r := attacker(code)
	r.expect(t, http.StatusTooManyRequests, codeOverRequestRateLimit)
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// GET /verify shares the budget.
	if res := e.do(req{method: "GET", path: "/verify?type=magiclink&token=abc", ip: "198.51.100.7", noKey: true}); res.Status != http.StatusTooManyRequests {
		t.Errorf("GET /verify over the limit: %d", res.Status)
	}
	e.do(req{method: "POST", path: "/verify", ip: "203.0.113.9",
		body: map[string]any{"type": "email", "email": "m@example.com", "token": code}}).expect(t, http.StatusOK, "")
}

// The mail endpoints answer the same for an address with an account and
// one without, and mail only the first.
func TestMailEndpointsDoNotTellWhoHasAnAccount(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAILER_AUTOCONFIRM": "false", "MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "pending@example.com", "password": "password1"})
	for _, r := range []req{
		{method: "POST", path: "/recover", body: map[string]any{"email": "%s"}},
		{method: "POST", path: "/resend", body: map[string]any{"type": "signup", "email": "%s"}},
		{method: "POST", path: "/resend", body: map[string]any{"type": "email_change", "email": "%s"}},
	} {
		var bodies []string
		for _, addr := range []string{"pending@example.com", "ghost@example.com"} {
			rr := r
			rr.body = map[string]any{}
			for k, v := range r.body.(map[string]any) {
				rr.body.(map[string]any)[k] = strings.ReplaceAll(v.(string), "%s", addr)
			}
			res := e.do(rr)
			bodies = append(bodies, string(res.Body))
			res.expect(t, http.StatusOK, "")
		}
		if bodies[0] != bodies[1] {
			t.Errorf("%s %v: %q vs %q", r.method, r.path, bodies[0], bodies[1])
		}
		e.clock.Advance(61 * time.Second)
	}
	if _, _, n := e.mailed(in, "ghost@example.com"); n != 0 {
		t.Fatal("mailed an address without an account")
	}
	if _, _, n := e.mailed(in, "pending@example.com"); n != 2 {
		t.Fatalf("%d mails to the member, want recovery and confirmation", n)
	}
}

func TestRedirectAllowList(t *testing.T) {
	e := setup(t, map[string]string{"SITE_URL": "https://app.example.com",
		"URI_ALLOW_LIST": "https://*.preview.example.org/**, com.example.app://callback, http://localhost:3000/*"})
	for raw, want := range map[string]bool{
		"https://app.example.com/reset-password": true,
		"https://app.example.com:8443/x":         false, // another port
		"http://app.example.com/x":               false, // another scheme
		"https://pr-7.preview.example.org/a/b":   true,
		"https://a.b.preview.example.org/":       false, // * stops at "."
		"com.example.app://callback":             true,
		"http://localhost:3000/welcome":          true,
		"http://localhost:3000/a/b":              false, // * stops at "/"
		"http://127.0.0.1:9999/any":              true,  // loopback
		"https://evil.example/x":                 false,
		"https://2130706433/":                    false,
		"https://app.example.com.evil.example/":  false,
		"\thttps://evil.example":                 false,
		"https://pr-7.preview.example.org/#frag": true,
		"javascript:alert(1)":                    false,
	} {
		if got := e.api.redirectAllowed(raw); got != want {
			t.Errorf("%q: allowed = %v, want %v", raw, got, want)
		}
	}
	if got := e.api.redirectTarget("https://evil.example/x"); got != "https://app.example.com" {
		t.Errorf("fallback = %q", got)
	}
	if got := e.api.redirectTarget("https://app.example.com/p#x"); got != "https://app.example.com/p" {
		t.Errorf("fragment kept: %q", got)
	}
}

// Every endpoint that mails a link honours an allowed redirect_to (query,
// as supabase-js sends it; generate_link's body too) and falls back to
// SITE_URL for one that is not allowed; the link then lands there.
func TestRedirectHonouredByEveryMailingEndpoint(t *testing.T) {
	in := mail.NewInbox(100)
	e := setupMail(t, map[string]string{"MAILER_AUTOCONFIRM": "false", "MAIL_DEV_INBOX": "true", "INVITE_REQUIRED": "false",
		"SMTP_MAX_FREQUENCY": "0", "URI_ALLOW_LIST": "http://localhost:5173/**"}, in)
	e.createUser(map[string]any{"email": "m@example.com", "password": "password1", "email_confirm": true})
	e.createUser(map[string]any{"email": "u@example.com", "password": "password1"}) // unconfirmed
	tok := e.signIn("m@example.com", "password1").str("access_token")
	allowed, foreign := "http://localhost:5173/app/landing", "https://evil.example/steal"
	for _, tc := range []struct {
		name string
		r    func(redirect string) req
		to   string
	}{
		{"recover", func(rd string) req {
			return req{method: "POST", path: "/recover?redirect_to=" + url.QueryEscape(rd), body: map[string]any{"email": "m@example.com"}}
		}, "m@example.com"},
		{"otp", func(rd string) req {
			return req{method: "POST", path: "/otp?redirect_to=" + url.QueryEscape(rd), body: map[string]any{"email": "m@example.com"}}
		}, "m@example.com"},
		{"signup", func(rd string) req {
			return req{method: "POST", path: "/signup?redirect_to=" + url.QueryEscape(rd), body: map[string]any{"email": "s" + rd[len(rd)-4:] + "@example.com", "password": "password1"}}
		}, ""},
		{"resend", func(rd string) req {
			return req{method: "POST", path: "/resend?redirect_to=" + url.QueryEscape(rd), body: map[string]any{"type": "signup", "email": "u@example.com"}}
		}, "u@example.com"},
		{"invite", func(rd string) req {
			return req{method: "POST", path: "/invite?redirect_to=" + url.QueryEscape(rd), bearer: e.cfg.ServiceRoleKey,
				headers: map[string]string{"apikey": e.cfg.ServiceRoleKey}, body: map[string]any{"email": "i" + rd[len(rd)-4:] + "@example.com"}}
		}, ""},
		{"email change", func(rd string) req {
			return req{method: "PUT", path: "/user?redirect_to=" + url.QueryEscape(rd), bearer: tok, body: map[string]any{"email": "n" + rd[len(rd)-4:] + "@example.com"}}
		}, ""},
	} {
		for _, rd := range []string{allowed, foreign} {
			r := tc.r(rd)
			res := e.do(r)
			res.expect(t, http.StatusOK, "")
			to := tc.to
			if to == "" {
				to = r.body.(map[string]any)["email"].(string)
			}
			link, _, _ := e.mailed(in, to)
			want := rd
			if rd == foreign {
				want = "http://labelbase.test"
			}
			if got := mustQuery(t, link).Get("redirect_to"); got != want {
				t.Errorf("%s with %s: link redirects to %q, want %q", tc.name, rd, got, want)
			}
		}
	}
	// The link lands where it says.
	e.do(req{method: "POST", path: "/otp?redirect_to=" + url.QueryEscape(allowed), body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	link, _, _ := e.mailed(in, "m@example.com")
	if loc, frag := e.follow(link); loc.Host != "localhost:5173" || loc.Path != "/app/landing" || frag.Get("access_token") == "" {
		t.Errorf("landed on %s with %v", loc, frag)
	}
	// generate_link takes redirect_to in the body as well.
	for rd, want := range map[string]string{allowed: allowed, foreign: "http://labelbase.test"} {
		g := e.admin(req{method: "POST", path: "/admin/generate_link", body: map[string]any{"type": "magiclink", "email": "m@example.com", "redirect_to": rd}})
		g.expect(t, http.StatusOK, "")
		if g.str("redirect_to") != want || mustQuery(t, g.str("action_link")).Get("redirect_to") != want {
			t.Errorf("generate_link %s: %s", rd, g.Body)
		}
	}
	// Without redirect_to, an allowed Referer is used, as GoTrue does.
	e.do(req{method: "POST", path: "/otp", headers: map[string]string{"Referer": "http://localhost:5173/signin"},
		body: map[string]any{"email": "m@example.com"}}).expect(t, http.StatusOK, "")
	if link, _, _ := e.mailed(in, "m@example.com"); mustQuery(t, link).Get("redirect_to") != "http://localhost:5173/signin" {
		t.Errorf("referer: %s", link)
	}
}
