package auth

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// The two generate_link tests of supabase-js's own auth suite
// (packages/core/auth-js/test/GoTrueApi.test.ts, "generateLink supports
// signUp with generate confirmation signup link" and "… updating emails
// with generate email change links"), checked as that suite checks them:
// the action link matches /\?token/, /type=…/ and, literally,
// `redirect_to=${redirectTo}` (GoTrue's mailer writes a plain target as it
// is). Both failed while the target was query-escaped.
func TestGenerateLinkAsAuthJSSuite(t *testing.T) {
	const redirectTo = "http://localhost:9999/welcome"
	e := setupMail(t, map[string]string{"URI_ALLOW_LIST": "http://localhost:9999/**"}, nil)
	gen := func(body map[string]any) *response {
		t.Helper()
		r := e.admin(req{method: "POST", path: "/admin/generate_link", body: body})
		r.expect(t, http.StatusOK, "")
		for _, k := range []string{"action_link", "email_otp", "hashed_token", "redirect_to", "verification_type"} {
			if _, ok := r.JSON[k]; !ok {
				t.Errorf("no property %s in %s", k, r.Body)
			}
		}
		return r
	}
	matches := func(link string, patterns ...string) {
		t.Helper()
		for _, p := range patterns {
			if !regexp.MustCompile(p).MatchString(link) {
				t.Errorf("action_link %s does not match /%s/", link, p)
			}
		}
	}

	meta := map[string]any{"status": "alpha"}
	r := gen(map[string]any{"type": "signup", "email": "s@example.com", "password": "password1", "data": meta, "redirect_to": redirectTo})
	matches(r.str("action_link"), `\?token`, `type=signup`, `redirect_to=`+redirectTo)
	if um, _ := r.JSON["user_metadata"].(map[string]any); um["status"] != "alpha" || r.str("email") != "s@example.com" {
		t.Errorf("signup link's user: %s", r.Body)
	}

	e.createUser(map[string]any{"email": "c@example.com", "password": "password1", "email_confirm": true})
	r = gen(map[string]any{"type": "email_change_current", "email": "c@example.com", "new_email": "n@example.com", "redirect_to": redirectTo})
	matches(r.str("action_link"), `\?token`, `type=email_change`, `redirect_to=`+redirectTo)
	if r.str("new_email") != "n@example.com" {
		t.Errorf("email change link's user has new_email %q: %s", r.str("new_email"), r.Body)
	}

	// The link, opened as it is, lands on the target it names.
	link := r.str("action_link")
	v := e.do(req{method: "GET", path: strings.TrimPrefix(link, "http://labelbase.test/auth/v1"), noKey: true})
	if loc := v.Header.Get("Location"); v.Status != http.StatusSeeOther || !strings.HasPrefix(loc, redirectTo+"#") {
		t.Errorf("opening %s: %d to %q", link, v.Status, loc)
	}
}

// A target that would not read back as itself from the query is escaped:
// GoTrue's &, = and # (encodeRedirectURL), and + % ; which a query reader
// would turn into something else.
func TestLinkRedirectEscapesOnlyWhatWouldNotReadBack(t *testing.T) {
	for target, want := range map[string]string{
		"http://localhost:9999/welcome":         "http://localhost:9999/welcome",
		"com.example.app://callback":            "com.example.app://callback",
		"https://app.example.com/a/b?x":         "https://app.example.com/a/b?x",
		"https://app.example.com/cb?next=/home": "https%3A%2F%2Fapp.example.com%2Fcb%3Fnext%3D%2Fhome",
		"https://app.example.com/cb?a&b":        "https%3A%2F%2Fapp.example.com%2Fcb%3Fa%26b",
		"https://app.example.com/a+b":           "https%3A%2F%2Fapp.example.com%2Fa%2Bb",
		"https://app.example.com/%41":           "https%3A%2F%2Fapp.example.com%2F%2541",
		"https://app.example.com/a;b":           "https%3A%2F%2Fapp.example.com%2Fa%3Bb",
	} {
		if got := linkRedirect(target); got != want {
			t.Errorf("linkRedirect(%q) = %q, want %q", target, got, want)
		}
	}
}
