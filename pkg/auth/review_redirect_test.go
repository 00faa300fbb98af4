package auth

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/mail"
)

// reviewAllowList is the security review's URI_ALLOW_LIST.
const reviewAllowList = "https://*.allowed.example/**,myapp://callback"

// Security review H2 and L1: the allow-list matches parsed URLs, so none of
// the review's payloads passes, and what held keeps holding.
func TestRedirectAllowListMatchesParsedURL(t *testing.T) {
	e := setup(t, map[string]string{"SITE_URL": "http://127.0.0.1:18089", "URI_ALLOW_LIST": reviewAllowList + ",http://192.168.1.5:3000/**"})
	for raw, want := range map[string]bool{
		// H2: the payloads that passed.
		"https://0x5db8d822?.allowed.example/x":    false,
		"https://u@0x5db8d822?.allowed.example/x":  false,
		"https://evil?.allowed.example/x":          false,
		"https://evil:443?.allowed.example/x":      false,
		"https://xn--80ak6aa92e?.allowed.example/": false,
		// L1: loopback only over http(s).
		"javascript://127.0.0.1/%0aalert(1)": false,
		"evilapp://127.0.0.1/cb":             false,
		"data://127.0.0.1/text/html,x":       false,
		"http://127.0.0.1:9999/steal":        true, // RFC 8252 native-app redirect
		"http://[::1]:9999/":                 true,
		"https://127.0.0.1:4000/":            true,
		"http://[0:0::1]:9999/":              false, // not the canonical form
		// Held before, must keep holding.
		"https://evil.example/":                     false,
		"//evil.example/":                           false,
		"http://127.0.0.1:18089@evil.example/":      false,
		`http://127.0.0.1:18089\@evil.example/`:     false,
		`/\evil.example`:                            false,
		`\\evil.example`:                            false,
		"javascript:alert(1)":                       false,
		"http://0x7f000001/":                        false,
		"https://0177.0.0.1?.allowed.example/":      false,
		"https://a.allowed.example.evil.com/":       false,
		"https://evil#.allowed.example/":            false,
		"https://evil%2ecom?.allowed.example/":      false,
		"https://x.allowed.example@evil.com/":       false,
		"myapp://callback.evil.com":                 false,
		"myapp://callback@evil.com":                 false,
		"HTTP://EVIL.example/":                      false,
		"http://127.0.0.1.nip.io/":                  false,
		"http://localhost.evil.com/":                false,
		"https://a\t.allowed.example/":              false,
		"https:evil.allowed.example/":               false, // no "//": a browser still reads a host
		"https:///evil.com?.allowed.example/":       false,
		"https://a.allowed.example/x/../../y":       false,
		"https://a.allowed.example/%2e%2e/y":        false,
		"https://1.2.3?.allowed.example/":           false,
		"https://a.allowed.example./":               false,
		"https://ａ.allowed.example/":                false,
		"https://a_b.allowed.example/":              false,
		"https://a.allowed.example:0443/":           true, // a browser drops the zeros and the default port
		"https://a.allowed.example:8443/":           false,
		"http://a.allowed.example/":                 false,
		"https://pr-7.allowed.example/a/b?c=d#frag": true,
		"https://PR-7.Allowed.Example/":             true,
		"https://a.b.allowed.example/":              false, // * is one label
		"myapp://callback":                          true,
		"MYAPP://callback":                          true,
		"http://127.0.0.1:18089/anything":           true, // the site
		"http://192.168.1.5:3000/cb":                true, // an IP listed literally
		"http://192.168.1.6:3000/cb":                false,
		"http://3232235781:3000/cb":                 false, // the same IP, not as listed
	} {
		if got := e.api.redirectAllowed(raw); got != want {
			t.Errorf("%q: allowed = %v, want %v", raw, got, want)
		}
	}
	// A wildcard never matches an IP address.
	w := setup(t, map[string]string{"SITE_URL": "https://app.example.com", "URI_ALLOW_LIST": "http://**/**"})
	if w.api.redirectAllowed("http://93.184.216.34/") || !w.api.redirectAllowed("http://a.b.example/") {
		t.Error("** host wildcard")
	}
}

// The review's exact requests: each mailing endpoint, generate_link, the
// Referer and GET /verify fall back to SITE_URL for the payload.
func TestRedirectPayloadFallsBackToSiteURL(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"URI_ALLOW_LIST": reviewAllowList,
		"MAIL_DEV_INBOX": "true", "SMTP_MAX_FREQUENCY": "0"}, in)
	e.createUser(map[string]any{"email": "carol@example.com", "password": "password1", "email_confirm": true})
	const payload = "https://0x5db8d822?.allowed.example/x"
	const site = "http://labelbase.test" // SITE_URL
	check := func(what string) {
		t.Helper()
		link, _, n := e.mailed(in, "carol@example.com")
		if n == 0 {
			t.Fatalf("%s: nothing mailed", what)
		}
		if got := mustQuery(t, link).Get("redirect_to"); got != site {
			t.Errorf("%s: link redirects to %q", what, got)
		}
	}
	e.do(req{method: "POST", path: "/otp?redirect_to=" + url.QueryEscape(payload),
		body: map[string]any{"email": "carol@example.com", "create_user": false}}).expect(t, http.StatusOK, "")
	check("otp")
	e.do(req{method: "POST", path: "/recover?redirect_to=" + url.QueryEscape(payload),
		body: map[string]any{"email": "carol@example.com"}}).expect(t, http.StatusOK, "")
	check("recover")
	e.do(req{method: "POST", path: "/otp", headers: map[string]string{"Referer": payload},
		body: map[string]any{"email": "carol@example.com", "create_user": false}}).expect(t, http.StatusOK, "")
	check("referer")
	g := e.admin(req{method: "POST", path: "/admin/generate_link",
		body: map[string]any{"type": "magiclink", "email": "carol@example.com", "redirect_to": payload}})
	g.expect(t, http.StatusOK, "")
	if g.str("redirect_to") != site || mustQuery(t, g.str("action_link")).Get("redirect_to") != site {
		t.Errorf("generate_link: %s", g.Body)
	}
	v := e.do(req{method: "GET", path: "/verify?type=magiclink&token=fff&redirect_to=" + url.QueryEscape(payload), noKey: true})
	if loc := v.Header.Get("Location"); !strings.HasPrefix(loc, site) {
		t.Errorf("GET /verify: %d Location %q", v.Status, loc)
	}
}

// The end of the review's H2 chain: a genuine mailed link whose
// redirect_to carries the payload (as the link of the vulnerable build
// did) sends the session to SITE_URL, never to the payload's host. The
// other mailing endpoints fall back too.
func TestGenuineLinkWithPayloadLandsOnSiteURL(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"URI_ALLOW_LIST": reviewAllowList, "MAIL_DEV_INBOX": "true", "SMTP_MAX_FREQUENCY": "0"}, in)
	e.createUser(map[string]any{"email": "carol@example.com", "password": "password1", "email_confirm": true})
	const payload = "https://0x5db8d822?.allowed.example/x"
	e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": "carol@example.com", "create_user": false}}).expect(t, http.StatusOK, "")
	link, _, _ := e.mailed(in, "carol@example.com")
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("redirect_to", payload)
	u.RawQuery = q.Encode()
	loc, frag := e.follow(u.String())
	if loc.Scheme+"://"+loc.Host != "http://labelbase.test" || frag.Get("access_token") == "" {
		t.Errorf("the session went to %s (fragment %v)", loc, frag)
	}

	tok := e.signIn("carol@example.com", "password1").str("access_token")
	for _, tc := range []struct {
		name, to string
		r        req
	}{
		{"magiclink", "carol@example.com", req{method: "POST", path: "/magiclink?redirect_to=" + url.QueryEscape(payload),
			body: map[string]any{"email": "carol@example.com"}}},
		{"email change", "new-carol@example.com", req{method: "PUT", path: "/user?redirect_to=" + url.QueryEscape(payload), bearer: tok,
			body: map[string]any{"email": "new-carol@example.com"}}},
		{"resend email_change", "new-carol@example.com", req{method: "POST", path: "/resend", headers: map[string]string{"Referer": payload},
			body: map[string]any{"type": "email_change", "email": "carol@example.com"}}},
	} {
		e.do(tc.r).expect(t, http.StatusOK, "")
		link, _, n := e.mailed(in, tc.to)
		if n == 0 {
			t.Fatalf("%s: nothing mailed", tc.name)
		}
		if got := mustQuery(t, link).Get("redirect_to"); got != "http://labelbase.test" {
			t.Errorf("%s: the link redirects to %q", tc.name, got)
		}
	}
}

// Issue #26 item 2's exceptions: an IP host in any form, or a custom
// scheme, is allowed only where the list names it literally; a wildcard
// host is a real subdomain, never the bare domain.
func TestAllowListLiteralExceptions(t *testing.T) {
	e := setup(t, map[string]string{"SITE_URL": "https://app.example.com",
		"URI_ALLOW_LIST": "https://0x5db8d822/cb,https://*.allowed.example/**,com.example.app://login"})
	for raw, want := range map[string]bool{
		"https://0x5db8d822/cb":          true, // listed literally
		"https://0x5db8d822/cb/../x":     false,
		"https://0x5db8d822/other":       false,
		"https://93.184.216.34/cb":       false, // the same address, not as listed
		"https://allowed.example/":       false, // not a subdomain
		"https://a.allowed.example/":     true,
		"com.example.app://login":        true,
		"com.example.app://login/x":      false,
		"com.example.app://evil":         false,
		"other.app://login":              false,
		"http://127.0.0.1:9999/cb":       true, // loopback over http (RFC 8252)
		"com.example.app://127.0.0.1/cb": false,
		"ftp://app.example.com/":         false, // SITE_URL's host, another scheme
	} {
		if got := e.api.redirectAllowed(raw); got != want {
			t.Errorf("%q: allowed = %v, want %v", raw, got, want)
		}
	}
}
