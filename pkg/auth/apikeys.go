package auth

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/token"
)

// OpaqueKeyGate accepts Supabase's opaque API keys (sb_publishable_…,
// sb_secret_…) beside the legacy JWT keys. Like Supabase's API gateway it
// swaps a valid opaque key for the JWT it stands for before the request
// goes on: the apikey header becomes the legacy anon or service-role key,
// and so does the bearer token when it is the opaque key (or, on /rest/v1,
// absent, so the key alone grants its role as on Supabase). The
// existing apikey check and /rest/v1's role resolution then see what they
// always saw.
//
// A secret key from a browser is refused with 401, as Supabase does: it
// bypasses RLS, so one that reached a web page has leaked. Supabase
// recognises browsers by their User-Agent; every browser's starts with
// "Mozilla/". A request with an Origin header is a browser's too (server
// clients such as supabase-js on Node send none), so that counts as well.
//
// It also accepts, with keys.Verifier set, API keys that are JWTs signed by
// any key of the set with role anon or service_role (token.APIKeys.ResolveJWT),
// swapping them for the configured key of their role the same way, so the
// apikey check stays one exact comparison.
//
// It must run after CORS, so the refusal carries the CORS headers a web
// page needs to read it.
func OpaqueKeyGate(keys token.APIKeys) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			r := c.Request()
			p := r.URL.Path
			if r.Method == http.MethodOptions || (!strings.HasPrefix(p, "/auth/v1/") && !strings.HasPrefix(p, "/rest/v1/") && !strings.HasPrefix(p, "/realtime/v1/")) {
				return next(c)
			}
			fromQuery := false
			key := r.Header.Get("apikey")
			if key == "" {
				key, fromQuery = r.URL.Query().Get("apikey"), true
			}
			if key == "" && p == jwksPath && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				// The JWKS is public, as on Supabase: verifiers such as
				// jose's createRemoteJWKSet send no apikey. The anon key is
				// public too, so lending it opens nothing else.
				r.Header.Set("apikey", keys.Anon)
				return next(c)
			}
			legacy, secret, ok := keys.Resolve(key)
			opaque := ok
			if !ok {
				legacy, ok = keys.ResolveJWT(key)
			}
			scheme, bearer, _ := strings.Cut(r.Header.Get("Authorization"), " ")
			bearer = strings.TrimSpace(bearer)
			isBearer := strings.EqualFold(scheme, "bearer")
			legacyBearer, secretBearer, okBearer := keys.Resolve(bearer)
			if (ok && secret || isBearer && okBearer && secretBearer) && fromBrowser(r) {
				e := apierr.New(http.StatusUnauthorized, "invalid_api_key", "Forbidden use of secret API key in browser")
				e.Hint = "Secret API keys can only be used on a server, never in a browser. Use the publishable key there."
				return e
			}
			if ok {
				r.Header.Set("apikey", legacy)
				if fromQuery {
					q := r.URL.Query()
					q.Set("apikey", legacy)
					r.URL.RawQuery = q.Encode()
				}
				// An opaque key alone grants its role on /rest/v1; a JWT
				// key alone grants anon, as the legacy keys always did
				// (a bearer JWT, the key itself included, is verified
				// there as it is).
				if opaque && r.Header.Get("Authorization") == "" && strings.HasPrefix(p, "/rest/v1/") {
					r.Header.Set("Authorization", "Bearer "+legacy)
				}
			}
			if isBearer && okBearer {
				r.Header.Set("Authorization", "Bearer "+legacyBearer)
			}
			return next(c)
		}
	}
}

// jwksPath is where the public signing keys are served.
const jwksPath = "/auth/v1/.well-known/jwks.json"

// fromBrowser says whether r comes from a web browser.
func fromBrowser(r *http.Request) bool {
	return strings.HasPrefix(r.UserAgent(), "Mozilla/") || r.Header.Get("Origin") != ""
}
