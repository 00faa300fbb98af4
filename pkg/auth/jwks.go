package auth

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

// jwks serves GET /.well-known/jwks.json: the public halves of the
// asymmetric signing keys, so clients (supabase-js's auth.getClaims(),
// other services) verify access tokens without calling /user. The HS256
// legacy key is never listed. Ten minutes of caching matches auth-js's own
// JWKS cache; a client that meets an unknown kid fetches again anyway,
// which is what makes a rotation visible before the cache ends.
func (a *API) jwks(c *echo.Context) error {
	h := c.Response().Header()
	h.Set("Cache-Control", "public, max-age=600")
	return c.Blob(http.StatusOK, "application/json", a.verifier.Keys().JWKS())
}
