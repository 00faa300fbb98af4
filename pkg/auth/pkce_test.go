package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/token"
)

// pkceRecover asks for a recovery mail of the PKCE flow and returns the
// newest link mailed to email.
func (e *testEnv) pkceRecover(in *mail.Inbox, email string, body map[string]any) string {
	e.t.Helper()
	body["email"] = email
	e.do(req{method: "POST", path: "/recover?redirect_to=" + url.QueryEscape("http://labelbase.test/reset-password"), body: body}).
		expect(e.t, http.StatusOK, "")
	e.api.WaitMail()
	var link string
	for _, m := range in.Messages() { // newest first
		if m.To == email {
			link = linkRE.FindString(m.Text)
			break
		}
	}
	if link == "" {
		e.t.Fatalf("no link mailed to %s", email)
	}
	return link
}

// codeFrom follows a PKCE link and returns the code of its redirect.
func (e *testEnv) codeFrom(link string) string {
	e.t.Helper()
	loc, frag := e.follow(link)
	if len(frag) != 0 || loc.Path != "/reset-password" {
		e.t.Fatalf("PKCE redirect to %s", loc)
	}
	code := loc.Query().Get("code")
	if code == "" {
		e.t.Fatalf("no code in %s", loc)
	}
	return code
}

func (e *testEnv) exchange(code, verifier string) *response {
	return e.do(req{method: "POST", path: "/token?grant_type=pkce", body: map[string]any{"auth_code": code, "code_verifier": verifier}})
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// The PKCE recovery flow: /recover keeps the challenge, the link redirects
// with a one-time code instead of a session, and only the verifier turns
// the code into a session whose amr says "recovery".
func TestPKCERecovery(t *testing.T) {
	in := mail.NewInbox(20)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")
	verifier := strings.Repeat("v", 20) + "-0123456789abcdefghijklmnop" // 47 characters

	link := e.pkceRecover(in, "m@example.com", map[string]any{"code_challenge": s256(verifier), "code_challenge_method": "s256"})
	code := e.codeFrom(link)
	// A wrong verifier is refused and leaves the code usable.
	e.exchange(code, verifier+"x").expect(t, http.StatusBadRequest, codeBadCodeVerifier)
	r := e.exchange(code, verifier)
	r.expect(t, http.StatusOK, "")
	access := r.str("access_token")
	v, err := token.NewVerifier(testSecret, "", nil).Verify(access)
	if err != nil {
		t.Fatal(err)
	}
	amr, _ := v.Claims["amr"].([]any)
	if len(amr) != 1 || amr[0].(map[string]any)["method"] != methodRecovery {
		t.Fatalf("amr = %v", v.Claims["amr"])
	}
	// The method survives a refresh.
	r2 := e.refresh(r.str("refresh_token"))
	r2.expect(t, http.StatusOK, "")
	v2, err := token.NewVerifier(testSecret, "", nil).Verify(r2.str("access_token"))
	if err != nil || v2.Claims["amr"].([]any)[0].(map[string]any)["method"] != methodRecovery {
		t.Fatalf("amr after refresh = %v (%v)", v2.Claims["amr"], err)
	}
	e.do(req{method: "PUT", path: "/user", bearer: access, body: map[string]any{"password": "password2"}}).expect(t, http.StatusOK, "")
	e.signIn("m@example.com", "password2")

	// Used once: the code, and the link.
	e.exchange(code, verifier).expect(t, http.StatusNotFound, codeFlowStateNotFound)
	_, frag := e.follow(link)
	if frag.Get("error_code") != codeOTPExpired {
		t.Fatalf("reused link: %v", frag)
	}

	// plain: the verifier is the challenge.
	plain := strings.Repeat("p", 43)
	e.clock.Advance(a61s)
	code = e.codeFrom(e.pkceRecover(in, "m@example.com", map[string]any{"code_challenge": plain, "code_challenge_method": "plain"}))
	e.exchange(code, plain).expect(t, http.StatusOK, "")

	// A code not exchanged within five minutes of the redirect expires.
	e.clock.Advance(a61s)
	code = e.codeFrom(e.pkceRecover(in, "m@example.com", map[string]any{"code_challenge": s256(verifier), "code_challenge_method": "S256"}))
	e.clock.Advance(flowStateExpiry + time.Second)
	e.exchange(code, verifier).expect(t, http.StatusUnprocessableEntity, codeFlowStateExpired)
	e.exchange(code, verifier).expect(t, http.StatusNotFound, codeFlowStateNotFound)

	// A newer request replaces the older flow: the old link's code is gone
	// with its token.
	e.clock.Advance(a61s)
	first := e.pkceRecover(in, "m@example.com", map[string]any{"code_challenge": s256(verifier), "code_challenge_method": "s256"})
	e.clock.Advance(a61s)
	second := e.pkceRecover(in, "m@example.com", map[string]any{"code_challenge": s256(verifier), "code_challenge_method": "s256"})
	if first == second {
		t.Fatal("the second request mailed no new link")
	}
	if _, frag := e.follow(first); frag.Get("error_code") != codeOTPExpired {
		t.Fatalf("replaced link: %v", frag)
	}
	e.exchange(e.codeFrom(second), verifier).expect(t, http.StatusOK, "")

	// Bad input.
	for _, body := range []map[string]any{
		{"code_challenge": s256(verifier)},                                 // no method
		{"code_challenge_method": "s256"},                                  // no challenge
		{"code_challenge": s256(verifier), "code_challenge_method": "md5"}, // unknown method
		{"code_challenge": "short", "code_challenge_method": "plain"},      // too short
	} {
		body["email"] = "m@example.com"
		e.do(req{method: "POST", path: "/recover", body: body}).expect(t, http.StatusBadRequest, codeValidationFailed)
	}
	e.exchange("", verifier).expect(t, http.StatusBadRequest, codeValidationFailed)
	e.exchange("made-up", "").expect(t, http.StatusBadRequest, codeValidationFailed)
	e.exchange("made-up", verifier).expect(t, http.StatusNotFound, codeFlowStateNotFound)
}

// a61s steps past SMTP_MAX_FREQUENCY, which holds back a second mail.
const a61s = 61 * time.Second

// A recovery link redeemed without PKCE starts a session whose amr is
// GoTrue's "otp".
func TestImplicitRecoveryAMR(t *testing.T) {
	in := mail.NewInbox(10)
	e := setupMail(t, nil, in)
	e.signUp("m@example.com", "password1")
	links := e.recoverMail(in, "m@example.com", "")
	_, frag := e.follow(links[0])
	v, err := token.NewVerifier(testSecret, "", nil).Verify(frag.Get("access_token"))
	if err != nil {
		t.Fatal(err)
	}
	if amr := v.Claims["amr"].([]any); amr[0].(map[string]any)["method"] != methodOTP {
		t.Fatalf("amr = %v", amr)
	}
}
