package auth

import (
	"net/http"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Issue #26 item 4 under the default MAILER_AUTOCONFIRM=true: the review's
// /signup request without an invite code (or with an unusable one) gets
// the same invalid_invite_code for a registered and an unknown address, so
// a stranger learns nothing. Only the holder of a usable code gets
// GoTrue's user_already_exists for a registered address (with autoconfirm
// the new address is signed in at once, so the difference cannot be
// hidden from them), and the code is not used up by it.
func TestSignupAutoconfirmNoEnumerationWithoutInvite(t *testing.T) {
	e := setup(t, nil)
	e.signUp("alice@example.com", "password1")
	for _, data := range []map[string]any{nil, {"invite_code": "not-a-code"}} {
		body := func(addr string) map[string]any {
			b := map[string]any{"email": addr, "password": "whatever123"}
			if data != nil {
				b["data"] = data
			}
			return b
		}
		a := e.do(req{method: "POST", path: "/signup", body: body("alice@example.com")})
		n := e.do(req{method: "POST", path: "/signup", body: body("nobody2@example.com")})
		a.expect(t, http.StatusUnprocessableEntity, codeInvalidInviteCode)
		n.expect(t, http.StatusUnprocessableEntity, codeInvalidInviteCode)
		if string(a.Body) != string(n.Body) {
			t.Errorf("bodies differ: %s / %s", a.Body, n.Body)
		}
	}
	code := pgtest.CreateInvite(t, e.db.Pool, 1)
	e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "alice@example.com", "password": "whatever123",
		"data": map[string]any{"invite_code": code}}}).expect(t, http.StatusUnprocessableEntity, codeUserAlreadyExists)
	if uses := e.count(`SELECT uses FROM public.invite_codes WHERE code = $1`, code); uses != 0 {
		t.Errorf("invite uses = %d after a refused sign-up", uses)
	}
	e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "nobody2@example.com", "password": "whatever123",
		"data": map[string]any{"invite_code": code}}}).expect(t, http.StatusOK, "")
}
