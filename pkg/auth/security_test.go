package auth

import (
	"net/http"
	"strings"
	"testing"
)

// bcrypt only reads 72 bytes. Sign-up refuses longer passwords; sign-in
// must not accept a stored 72-byte password followed by anything.
func TestSignInRefusesPasswordsLongerThanBcryptReads(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	pw := strings.Repeat("p", maxPasswordBytes)
	e.signUp("long@example.com", pw)
	e.signIn("long@example.com", pw)
	r := e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{
		"email": "long@example.com", "password": pw + "anything"}})
	r.expect(t, http.StatusBadRequest, codeInvalidCredentials)
}

// Addresses that differ only in Unicode form (NFC é vs NFD e+◌́) would be
// two accounts that look the same; like GoTrue, only ASCII addresses are
// accepted.
func TestEmailMustBeASCII(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"caf\u00e9@example.com", "cafe\u0301@example.com", "\u212aate@example.com", "a@ex\u00e4mple.com"} {
		if got, err := normaliseEmail(s); err == nil {
			t.Errorf("normaliseEmail(%q) = %q, want an error", s, got)
		}
	}
	if got, err := normaliseEmail("  Kate@Example.COM "); err != nil || got != "kate@example.com" {
		t.Errorf("normaliseEmail = %q, %v", got, err)
	}
}

// user_metadata rides in every access token; PUT /user merges into it, so
// without a cap repeated updates grow it (and the JWT) without bound until
// the token no longer fits in a request header.
func TestUserMetadataIsBounded(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	at := e.signUp("meta@example.com", "pw123456").str("access_token")
	big := strings.Repeat("x", maxUserMetadataBytes/4)
	var last *response
	for i := 0; i < 8; i++ {
		last = e.do(req{method: "PUT", path: "/user", bearer: at, body: map[string]any{
			"data": map[string]any{"k" + string(rune('a'+i)): big}}})
		if last.Status != http.StatusOK {
			break
		}
	}
	last.expect(t, http.StatusUnprocessableEntity, codeValidationFailed)
	// Sign-up data is bounded the same way.
	r := e.do(req{method: "POST", path: "/signup", body: map[string]any{
		"email": "meta2@example.com", "password": "pw123456",
		"data": map[string]any{"invite_code": "x", "blob": strings.Repeat("y", maxUserMetadataBytes)}}})
	r.expect(t, http.StatusUnprocessableEntity, codeValidationFailed)
}
