package auth

import (
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// No input may produce a 500: every body below is something a client could
// send, and each must get a 4xx in GoTrue's shape.
func TestHostileInputNever500(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"RATE_LIMIT_TOKEN_PER_HOUR": "1000000", "RATE_LIMIT_SIGNUP_PER_5MIN": "1000000", "RATE_LIMIT_USER_UPDATE_PER_5MIN": "1000000"})
	code := pgtest.CreateInvite(t, e.db.Pool, 1000)
	at := e.signUp("hostile@example.com", "pw123456").str("access_token")
	deep := strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000)
	bodies := []string{
		``, `null`, `[]`, `123`, `"str"`, `{}`, `{"email":null,"password":null}`,
		`{"email":"a\u0000b@example.com","password":"pw123456","data":{"invite_code":"` + code + `"}}`,
		`{"email":"nul@example.com","password":"pw\u0000123456","data":{"invite_code":"` + code + `"}}`,
		`{"email":"nul2@example.com","password":"pw123456","data":{"invite_code":"` + code + `","x":"\u0000"}}`,
		`{"email":"nul3@example.com","password":"pw123456","data":{"invite_code":"` + code + `\u0000"}}`,
		`{"email":"big@example.com","password":"pw123456","data":{"invite_code":"` + code + `","n":1e1000000}}`,
		`{"email":"deep@example.com","password":"pw123456","data":{"invite_code":"` + code + `","d":` + deep + `}}`,
		`{"email":"` + strings.Repeat("a", 300) + `@example.com","password":"pw123456"}`,
		`{"email":"uni\u00e9@example.com","password":"pw123456","data":{"invite_code":"` + code + `"}}`,
		`{"refresh_token":"\u0000"}`, `{"refresh_token":123}`, `{"refresh_token":"` + strings.Repeat("x", 5000) + `"}`,
		`{"data":{"x":"\u0000"}}`, `{"email":"x\u0000@example.com"}`, `{"password":"` + strings.Repeat("é", 50) + `"}`,
		`{"data":{"n":1e1000000}}`, `{"data":{"d":` + deep + `}}`,
		"\xff\xfe{", `{"email":"` + "\xff" + `@example.com","password":"pw123456"}`,
	}
	paths := []struct{ method, path string }{
		{"POST", "/signup"},
		{"POST", "/token?grant_type=password"},
		{"POST", "/token?grant_type=refresh_token"},
		{"PUT", "/user"},
		{"POST", "/logout?scope=local%00"},
	}
	for _, p := range paths {
		for _, b := range bodies {
			r := e.do(req{method: p.method, path: p.path, body: b, bearer: at})
			if r.Status >= 500 {
				t.Errorf("%s %s %.80q: %d %s", p.method, p.path, b, r.Status, r.Body)
			}
		}
	}
	// Hostile bearer tokens.
	for _, tok := range []string{"a.b.c", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", strings.Repeat("x", 10000)} {
		if r := e.do(req{method: "GET", path: "/user", bearer: tok}); r.Status >= 500 {
			t.Errorf("bearer %.20q: %d", tok, r.Status)
		}
	}
}
