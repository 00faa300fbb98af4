package auth

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// The GoTrue features Labelbase does not offer — SSO/SAML, social and
// id_token sign-in, web3, identity linking, passkeys (and phone and
// anonymous sign-ins, refused where their requests arrive) — answer exactly
// as a GoTrue with them disabled does: its status, error_code and message,
// so auth-js raises the same errors and a client can tell "off" from
// "missing". GET /settings reports them off.

// registerDisabled adds the disabled features' routes under the API key.
func (a *API) registerDisabled(g *echo.Group) {
	saml := func(c *echo.Context) error {
		return apierr.New(http.StatusNotFound, codeSAMLProviderDisabled, "SAML 2.0 is disabled")
	}
	g.POST("/sso", saml)
	g.GET("/sso/saml/metadata", saml)
	g.POST("/sso/saml/acs", saml)
	g.GET("/user/identities/authorize", a.linkingDisabled)
	g.DELETE("/user/identities/:id", a.linkingDisabled)
	passkeys := func(c *echo.Context) error {
		return apierr.New(http.StatusNotFound, codePasskeyDisabled, "Passkeys are disabled")
	}
	g.Any("/passkeys", passkeys)
	g.Any("/passkeys/*", passkeys)
}

// linkingDisabled answers identity linking: the caller is authenticated
// first, as GoTrue's route is, then told manual linking is off.
func (a *API) linkingDisabled(c *echo.Context) error {
	if _, err := a.authenticate(c); err != nil {
		return err
	}
	return apierr.New(http.StatusNotFound, codeManualLinkingDisabled, "Manual linking is disabled")
}

// authorize handles GET /authorize?provider=…, where supabase-js's
// signInWithOAuth sends the browser (without an API key). Every GoTrue
// provider is off; a name GoTrue does not know is not found.
func (a *API) authorize(c *echo.Context) error {
	name := strings.ToLower(c.QueryParam("provider"))
	for _, p := range externalProviders {
		if p == name && p != "email" && p != "phone" && p != "anonymous_users" {
			return badRequest(codeValidationFailed, "Unsupported provider: provider is not enabled")
		}
	}
	return badRequest(codeValidationFailed, "Unsupported provider: Provider %s could not be found", name)
}

// oidcIssuers are the issuers GoTrue checks id_tokens of its built-in
// providers against.
var oidcIssuers = map[string]string{
	"google":   "https://accounts.google.com",
	"apple":    "https://appleid.apple.com",
	"azure":    "https://login.microsoftonline.com/common/v2.0",
	"facebook": "https://www.facebook.com",
	"kakao":    "https://kauth.kakao.com",
	"keycloak": "",
}

type idTokenParams struct {
	IDToken  string `json:"id_token"`
	Provider string `json:"provider"`
	ClientID string `json:"client_id"`
	Issuer   string `json:"issuer"`
}

// idTokenGrant handles POST /token?grant_type=id_token
// (signInWithIdToken): no provider is enabled.
func (a *API) idTokenGrant(c *echo.Context) error {
	var p idTokenParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if p.IDToken == "" {
		return badRequest(codeValidationFailed, "id_token required")
	}
	if p.Provider == "" && (p.ClientID == "" || p.Issuer == "") {
		return badRequest(codeValidationFailed, "provider or client_id and issuer required")
	}
	issuer, known := oidcIssuers[strings.ToLower(p.Provider)]
	if p.Provider == "" {
		issuer, known = p.Issuer, true
	}
	if !known {
		return badRequest(codeValidationFailed, "Custom OIDC provider %q not allowed", p.Provider)
	}
	return badRequest(codeProviderDisabled, "Provider (issuer %q) is not enabled", issuer)
}

// web3Grant handles POST /token?grant_type=web3 (signInWithWeb3).
func (a *API) web3Grant(c *echo.Context) error {
	return unprocessable(codeWeb3ProviderDisabled, "Web3 provider is disabled")
}
