package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"
)

// externalProviders lists GoTrue's providers; only email is enabled.
var externalProviders = []string{
	"anonymous_users", "apple", "azure", "bitbucket", "discord", "email", "facebook", "figma", "fly",
	"github", "gitlab", "google", "kakao", "keycloak", "linkedin", "linkedin_oidc", "notion", "phone",
	"slack", "slack_oidc", "spotify", "twitch", "twitter", "workos", "zoom",
}

// settings handles GET /settings in GoTrue's shape: email is the only
// provider; mailer_autoconfirm is MAILER_AUTOCONFIRM.
func (a *API) settings(c *echo.Context) error {
	ext := make(map[string]bool, len(externalProviders))
	for _, p := range externalProviders {
		ext[p] = p == "email"
	}
	return c.JSON(http.StatusOK, map[string]any{
		"external":           ext,
		"disable_signup":     a.cfg.DisableSignup,
		"mailer_autoconfirm": a.cfg.MailerAutoconfirm,
		"phone_autoconfirm":  false,
		"sms_provider":       "",
		"saml_enabled":       false,
	})
}

// health handles GET /health like GoTrue's, and answers 503 when the
// database is unreachable, since nothing here works without it.
func (a *API) health(c *echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := a.pool.Ping(ctx); err != nil {
		return newError(http.StatusServiceUnavailable, "service_unavailable", "Database unavailable").WithCause(err)
	}
	return c.JSON(http.StatusOK, map[string]string{
		"version":     "labelbase",
		"name":        "GoTrue",
		"description": "Labelbase's GoTrue-compatible authentication API",
	})
}
