package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Security review H1, end to end with the review's exact requests: an
// admin with a verified TOTP factor, signed in with the password only
// (aal1), gets a member's refusals from the admin procedures over
// /rest/v1; after the second step (aal2) the same calls work, and the
// audit trail records the aal.
func TestAdminProceduresNeedAAL2OverREST(t *testing.T) {
	db := pgtest.New(t)
	g := startGateway(t, db.URL, nil, false, nil)
	ctx := context.Background()
	adminID := pgtest.CreateUser(t, db.Pool, "admin@example.com", "password-admin")
	malID := pgtest.CreateUser(t, db.Pool, "mallory@example.com", "password-mal")
	if _, err := db.Pool.Exec(ctx, `UPDATE auth.users SET raw_app_meta_data = raw_app_meta_data || '{"role":"admin"}' WHERE id = $1`, adminID); err != nil {
		t.Fatal(err)
	}
	signIn := func() string {
		status, tk := g.grant(t, "password", `{"email":"admin@example.com","password":"password-admin"}`)
		if status != 200 {
			t.Fatalf("sign-in: %d %+v", status, tk)
		}
		return tk.AccessToken
	}
	rpc := func(tok, fn, body string) (int, string) {
		status, b := g.call(t, "POST", "/rest/v1/rpc/"+fn, body, "Authorization", "Bearer "+tok)
		return status, string(b)
	}
	// Enrol and verify a TOTP factor (an admin without one keeps aal1 power).
	aal1 := signIn()
	if status, b := rpc(aal1, "admin_members", `{}`); status != 200 {
		t.Fatalf("admin without a factor: %d %s", status, b)
	}
	status, b := g.call(t, "POST", "/auth/v1/factors", `{"factor_type":"totp","friendly_name":"phone"}`, "Authorization", "Bearer "+aal1)
	var enrolled struct {
		ID   string `json:"id"`
		TOTP struct {
			Secret string `json:"secret"`
		} `json:"totp"`
	}
	if err := json.Unmarshal(b, &enrolled); err != nil || status != 200 {
		t.Fatalf("enroll: %d %s", status, b)
	}
	verify := func(tok string, at time.Time) string {
		_, cb := g.call(t, "POST", "/auth/v1/factors/"+enrolled.ID+"/challenge", `{}`, "Authorization", "Bearer "+tok)
		var ch struct{ ID string }
		_ = json.Unmarshal(cb, &ch)
		code, err := totp.GenerateCodeCustom(enrolled.TOTP.Secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			t.Fatal(err)
		}
		status, vb := g.call(t, "POST", "/auth/v1/factors/"+enrolled.ID+"/verify", fmt.Sprintf(`{"challenge_id":%q,"code":%q}`, ch.ID, code), "Authorization", "Bearer "+tok)
		var tk tokens
		if err := json.Unmarshal(vb, &tk); err != nil || status != 200 {
			t.Fatalf("verify: %d %s", status, vb)
		}
		return tk.AccessToken
	}
	verify(aal1, time.Now())

	// The attack: a password-only session.
	aal1 = signIn()
	for _, c := range []struct{ fn, body string }{
		{"admin_set_admin", fmt.Sprintf(`{"p_user_id":%q,"p_admin":true}`, malID)},
		{"admin_members", `{}`},
		{"admin_create_invite", `{"p_max_uses":1,"p_note":"aal1-made"}`},
		{"admin_audit_log", `{"p_limit":1}`},
	} {
		if status, b := rpc(aal1, c.fn, c.body); status != 403 {
			t.Errorf("aal1 %s: %d %s", c.fn, status, b)
		}
	}
	var isAdmin bool
	if err := db.Pool.QueryRow(ctx, `SELECT coalesce(raw_app_meta_data ->> 'role' = 'admin', false) FROM auth.users WHERE id = $1`, malID).Scan(&isAdmin); err != nil || isAdmin {
		t.Fatalf("mallory became admin: %v %v", isAdmin, err)
	}
	// After the second step the admin is an admin again.
	aal2 := verify(aal1, time.Now().Add(30*time.Second))
	if status, b := rpc(aal2, "admin_create_invite", `{"p_max_uses":1,"p_note":"aal2-made"}`); status != 200 {
		t.Fatalf("aal2 create_invite: %d %s", status, b)
	}
	var aal string
	if err := db.Pool.QueryRow(ctx, `SELECT detail ->> 'aal' FROM private.admin_audit WHERE action = 'create_invite' ORDER BY id DESC LIMIT 1`).Scan(&aal); err != nil || aal != "aal2" {
		t.Errorf("audit aal %q, %v", aal, err)
	}
}
