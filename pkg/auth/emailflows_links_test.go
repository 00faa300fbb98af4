package auth

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/token"
)

func TestGenerateLinkEveryType(t *testing.T) {
	e := setupMail(t, nil, nil)
	e.signUp("m@example.com", "password1")
	gen := func(body map[string]any) *response {
		return e.admin(req{method: "POST", path: "/admin/generate_link", body: body})
	}
	// The email is checked before the type.
	gen(map[string]any{"type": "nonsense", "email": "bad"}).expect(t, http.StatusBadRequest, codeValidationFailed)
	if r := gen(map[string]any{"type": "nonsense", "email": "m@example.com"}); !strings.Contains(r.str("message"), "link type") {
		t.Fatalf("bad type: %s", r.Body)
	}
	for _, tc := range []struct {
		body     map[string]any
		verify   string
		redeemAs string
	}{
		{map[string]any{"type": "signup", "email": "s@example.com", "password": "password1"}, "signup", "signup"},
		{map[string]any{"type": "invite", "email": "i@example.com"}, "invite", "invite"},
		{map[string]any{"type": "magiclink", "email": "m@example.com"}, "magiclink", "magiclink"},
		{map[string]any{"type": "recovery", "email": "m@example.com"}, "recovery", "recovery"},
		{map[string]any{"type": "email_change_current", "email": "m@example.com", "new_email": "m2@example.com"}, "email_change", "email_change"},
		{map[string]any{"type": "email_change_new", "email": "m2@example.com", "new_email": "m3@example.com"}, "email_change", "email_change"},
	} {
		r := gen(tc.body)
		r.expect(t, http.StatusOK, "")
		if r.str("verification_type") != tc.verify || len(r.str("email_otp")) != 6 || r.str("hashed_token") == "" ||
			r.str("redirect_to") != "http://labelbase.test" || mustQuery(t, r.str("action_link")).Get("token") != r.str("hashed_token") {
			t.Fatalf("%v: %s", tc.body, r.Body)
		}
		v := e.do(req{method: "POST", path: "/verify", body: map[string]any{"type": tc.redeemAs, "token_hash": r.str("hashed_token")}})
		v.expect(t, http.StatusOK, "")
		if v.str("access_token") == "" {
			t.Fatalf("%v redeemed to %s", tc.body, v.Body)
		}
	}
	// The email changes applied (autoconfirm, one link each).
	e.signIn("m3@example.com", "password1")
	// A magic link for an unknown address signs it up (GoTrue's rule); the
	// other types need a user.
	if r := gen(map[string]any{"type": "magiclink", "email": "nobody@example.com"}); r.Status != http.StatusOK ||
		r.str("verification_type") != "signup" || r.JSON["email_confirmed_at"] != nil {
		t.Fatalf("magiclink for a stranger: %s", r.Body)
	}
	gen(map[string]any{"type": "recovery", "email": "ghost@example.com"}).expect(t, http.StatusNotFound, codeUserNotFound)
	gen(map[string]any{"type": "signup", "email": "m3@example.com", "password": "password1"}).expect(t, http.StatusUnprocessableEntity, codeEmailExists)
	gen(map[string]any{"type": "email_change_new", "email": "m3@example.com"}).expect(t, http.StatusBadRequest, codeValidationFailed)
	gen(map[string]any{"type": "email_change_new", "email": "m3@example.com", "new_email": "s@example.com"}).
		expect(t, http.StatusUnprocessableEntity, codeEmailExists)
}

// The PKCE flow works for every mailed link, not only recovery: a magic
// link of a client that sent a code challenge redirects with ?code=, which
// only the verifier turns into a session (amr magiclink).
func TestMagicLinkPKCE(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")
	verifier := strings.Repeat("v", 50)
	challenge := s256(verifier)
	e.do(req{method: "POST", path: "/otp?redirect_to=" + url.QueryEscape("http://labelbase.test/reset-password"),
		body: map[string]any{"email": "m@example.com", "code_challenge": challenge, "code_challenge_method": "s256"}}).
		expect(t, http.StatusOK, "")
	link, _, _ := e.mailed(in, "m@example.com")
	if !strings.HasPrefix(mustQuery(t, link).Get("token"), pkcePrefix) {
		t.Fatalf("link %s", link)
	}
	code := e.codeFrom(link)
	e.exchange(code, "wrong-"+verifier).expect(t, http.StatusBadRequest, codeBadCodeVerifier)
	r := e.exchange(code, verifier)
	r.expect(t, http.StatusOK, "")
	v, err := token.NewVerifier(testSecret, "", e.clock.Now).Verify(r.str("access_token"))
	if err != nil || v.Claims["amr"].([]any)[0].(map[string]any)["method"] != "magiclink" {
		t.Fatalf("amr of %v: %v", v, err)
	}
}
