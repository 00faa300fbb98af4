package storage

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/token"
)

// caller is whom a storage request's SQL runs as.
type caller struct {
	role   string
	claims []byte
	// sub is the JWT subject: objects.owner_id, and objects.owner when it
	// is a UUID.
	sub          string
	method, path string
	headers      []byte
	service      bool
}

// authenticate resolves the caller as supabase/storage does: whoever
// Authorization: Bearer names. An apikey header never stands in for a
// missing Authorization; that gets storage's own "Invalid Compact JWS".
func (a *API) authenticate(c *echo.Context) (*caller, error) {
	h := strings.TrimSpace(c.Request().Header.Get("Authorization"))
	scheme, tok, _ := strings.Cut(h, " ")
	tok = strings.TrimSpace(tok)
	if h == "" || !strings.EqualFold(scheme, "bearer") || tok == "" {
		return nil, errAccessDenied("Invalid Compact JWS")
	}
	v, err := a.verifier.Verify(tok)
	if err != nil {
		return nil, tokenError(err)
	}
	if err := db.CheckRole(v.Role, a.anonRole); err != nil {
		return nil, errAccessDenied("role " + v.Role + " is not allowed")
	}
	who := &caller{role: v.Role, claims: v.JSON, sub: v.Subject, service: v.Role == "service_role"}
	a.describe(c, who)
	return who, nil
}

// serviceCaller is what upstream calls "superuser": service_role, which
// bypasses RLS, for reads of public buckets and signed URLs, whose access
// was decided by the bucket's flag or the token.
func (a *API) serviceCaller(c *echo.Context) *caller {
	who := &caller{role: "service_role", claims: []byte(`{"role":"service_role"}`), service: true}
	a.describe(c, who)
	return who
}

// describe publishes request.method, request.path and request.headers,
// as /rest/v1 does, for policies that read them.
func (a *API) describe(c *echo.Context, who *caller) {
	r := c.Request()
	who.method, who.path = r.Method, r.URL.Path
	hs := map[string]string{}
	for k, v := range r.Header {
		k = strings.ToLower(k)
		if k == "authorization" || k == "cookie" || k == "apikey" {
			continue
		}
		hs[k] = strings.Join(v, ", ")
	}
	who.headers, _ = json.Marshal(hs)
}

// tokenError words a rejected bearer token as jose does, which is what
// upstream sends.
func tokenError(err error) error {
	switch {
	case errors.Is(err, token.ErrExpired):
		return errAccessDenied(`"exp" claim timestamp check failed`)
	case errors.Is(err, token.ErrSignature):
		return errAccessDenied("signature verification failed")
	case errors.Is(err, token.ErrClaims):
		return errAccessDenied("invalid claims")
	default:
		return errAccessDenied("Invalid Compact JWS")
	}
}
