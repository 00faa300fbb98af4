package auth

import (
	"testing"
)

func TestSettingsAndHealth(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	r := e.do(req{method: "GET", path: "/settings"})
	r.expect(t, 200, "")
	ext := obj(t, r.JSON, "external")
	if ext["email"] != true || ext["phone"] != false || ext["github"] != false {
		t.Errorf("external = %v", ext)
	}
	if r.JSON["disable_signup"] != false || r.JSON["mailer_autoconfirm"] != true || r.JSON["phone_autoconfirm"] != false {
		t.Errorf("settings = %s", r.Body)
	}
	if _, ok := r.JSON["saml_enabled"]; !ok {
		t.Error("saml_enabled missing")
	}

	e.do(req{method: "GET", path: "/health"}).expect(t, 200, "")

	// The shared gateway rules apply under /auth/v1.
	e.do(req{method: "GET", path: "/settings", noKey: true}).expect(t, 401, "no_api_key")
	e.do(req{method: "GET", path: "/nope"}).expect(t, 404, "not_found")

	d := setup(t, map[string]string{"DISABLE_SIGNUP": "1"})
	if r := d.do(req{method: "GET", path: "/settings"}); r.JSON["disable_signup"] != true {
		t.Errorf("disable_signup = %v", r.JSON["disable_signup"])
	}
}

func TestServiceRoleKeyAccepted(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	e.do(req{method: "GET", path: "/settings", headers: map[string]string{"apikey": e.cfg.ServiceRoleKey}}).expect(t, 200, "")
}
