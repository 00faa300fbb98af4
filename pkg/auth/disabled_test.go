package auth

import (
	"testing"
)

func TestDisabledFeatures(t *testing.T) {
	e := setupMail(t, nil, nil)
	e.signUp("m@example.com", "password1")
	tok := e.signIn("m@example.com", "password1").str("access_token")
	for _, tc := range []struct {
		r      req
		status int
		code   string
	}{
		{req{method: "POST", path: "/signup", body: map[string]any{"data": map[string]any{}}}, 422, codeAnonymousProviderDisabled},
		{req{method: "POST", path: "/sso", body: map[string]any{"domain": "example.com"}}, 404, codeSAMLProviderDisabled},
		{req{method: "POST", path: "/token?grant_type=id_token", body: map[string]any{"provider": "google", "id_token": "x"}}, 400, codeProviderDisabled},
		{req{method: "POST", path: "/token?grant_type=id_token", body: map[string]any{"provider": "nope", "id_token": "x"}}, 400, codeValidationFailed},
		{req{method: "POST", path: "/token?grant_type=id_token", body: map[string]any{"provider": "google"}}, 400, codeValidationFailed},
		{req{method: "POST", path: "/token?grant_type=web3", body: map[string]any{"chain": "solana"}}, 422, codeWeb3ProviderDisabled},
		{req{method: "GET", path: "/user/identities/authorize?provider=github", bearer: tok}, 404, codeManualLinkingDisabled},
		{req{method: "GET", path: "/user/identities/authorize?provider=github"}, 403, codeBadJWT},
		{req{method: "POST", path: "/passkeys/registration/options", bearer: tok}, 404, codePasskeyDisabled},
		{req{method: "POST", path: "/otp", body: map[string]any{"phone": "+15555550100"}}, 400, codePhoneProviderDisabled},
		{req{method: "POST", path: "/verify", body: map[string]any{"type": "sms", "phone": "+15555550100", "token": "123456"}}, 403, codeOTPExpired},
		{req{method: "GET", path: "/authorize?provider=github", noKey: true}, 400, codeValidationFailed},
	} {
		r := e.do(tc.r)
		if r.Status != tc.status || r.str("code") != tc.code {
			t.Errorf("%s %s: %d %s, want %d %s", tc.r.method, tc.r.path, r.Status, r.Body, tc.status, tc.code)
		}
	}
	s := e.do(req{method: "GET", path: "/settings"})
	if ext := obj(t, s.JSON, "external"); ext["anonymous_users"] != false || ext["github"] != false || ext["email"] != true ||
		s.JSON["saml_enabled"] != false || s.JSON["mailer_autoconfirm"] != true {
		t.Errorf("settings %s", s.Body)
	}
}
