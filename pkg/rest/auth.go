package rest

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/token"
)

// caller is who a request runs as.
type caller struct {
	role   string
	claims []byte
}

// authed says whether the caller presented a user or service JWT; it
// decides between 401 and 403 for missing privileges, as in PostgREST.
func (c *caller) authed(anonRole string) bool { return c.role != anonRole }

// jwtError is PostgREST's 401 for a token it cannot accept: the code, its
// fixed message and the WWW-Authenticate challenge that repeats it.
func jwtError(code, msg string, details any) *apierr.Error {
	e := apierr.New(http.StatusUnauthorized, code, "%s", msg)
	e.Details = details
	return e.WithHeader("WWW-Authenticate", `Bearer error="invalid_token", error_description=`+strconv.Quote(msg))
}

// authenticate resolves the role: no Authorization (or the anon key as
// bearer) is anonymous, the service-role key is service_role, anything
// else must be a valid JWT, signed by a key of the gateway's key set
// (ES256/RS256 by kid, or HS256 from JWT_SECRET), whose role is allowed.
// The legacy apikey header alone never grants more than anon; opaque
// sb_ keys were already swapped for the legacy ones at the gateway.
//
// The settings add PostgREST's jwt-aud (an aud claim, when present, must
// include it) and jwt-role-claim-key (where in the claims the role is; a
// token without it is anonymous, as in PostgREST).
func (a *API) authenticate(r *http.Request, set *settings) (*caller, error) {
	anon := set.AnonRole
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return &caller{role: anon, claims: roleClaims(anon)}, nil
	}
	scheme, tok, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "bearer") {
		// PostgREST only reads Bearer credentials; others are ignored.
		return &caller{role: anon, claims: roleClaims(anon)}, nil
	}
	tok = strings.TrimSpace(tok)
	switch {
	case tok == "":
		return nil, jwtError(pgrst.CodeJWTInvalid, "Empty JWT is sent in Authorization header", nil)
	case keyIs(tok, a.cfg.AnonKey):
		return &caller{role: anon, claims: roleClaims(anon)}, nil
	case keyIs(tok, a.cfg.ServiceRoleKey):
		return &caller{role: "service_role", claims: roleClaims("service_role")}, nil
	}
	// A token the verifier accepts has three parts and one of the three
	// algorithms (it checks both), so the structural checks below only run
	// to name what is wrong with a refused one, as PostgREST words it. A
	// busy client's token is served from the verifier's cache without
	// decoding its header again.
	v, err := a.verifier.Verify(tok)
	if err != nil {
		if bad := malformed(tok); bad != nil {
			return nil, bad
		}
		return nil, mapTokenError(err)
	}
	if set.JWTAud != "" && !audienceIncludes(v.Claims["aud"], set.JWTAud) {
		return nil, jwtError(pgrst.CodeJWTClaims, "JWT not in audience", nil)
	}
	role := v.Role
	if !set.RoleClaim.isRole() {
		var ok bool
		if role, ok = set.RoleClaim.lookup(v.JSON); !ok {
			role = anon
		}
	}
	if !db.AllowedRoles[role] {
		return nil, jwtError(pgrst.CodeJWTClaims, "JWT role is not allowed", fmt.Sprintf("role %q is not one of anon, authenticated, service_role", role))
	}
	return &caller{role: role, claims: v.JSON}, nil
}

// malformed is PostgREST's error for a token that is not a JWT of an
// accepted algorithm, or nil when its shape is fine.
func malformed(tok string) *apierr.Error {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return jwtError(pgrst.CodeJWTInvalid, fmt.Sprintf("Expected 3 parts in JWT; got %d", len(parts)), nil)
	}
	hdr, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[0], "="))
	var head struct {
		Alg string `json:"alg"`
	}
	if err != nil || json.Unmarshal(hdr, &head) != nil {
		return jwtError(pgrst.CodeJWTInvalid, "JWT couldn't be decoded", nil)
	}
	switch head.Alg {
	case token.HS256, token.ES256, token.RS256:
		return nil
	}
	return jwtError(pgrst.CodeJWTInvalid, "Wrong or unsupported encoding algorithm", "JWT algorithm "+strconv.Quote(head.Alg)+" is not allowed; only ES256, RS256 and HS256 are accepted")
}

// audienceIncludes says whether an aud claim (absent, a string or a list
// of strings) admits aud; a token without aud is admitted, as PostgREST
// does.
func audienceIncludes(claim any, aud string) bool {
	switch c := claim.(type) {
	case nil:
		return true
	case string:
		return c == aud
	case []any:
		for _, x := range c {
			if s, ok := x.(string); ok && s == aud {
				return true
			}
		}
	}
	return false
}

func mapTokenError(err error) *apierr.Error {
	switch {
	case errors.Is(err, token.ErrExpired):
		return jwtError(pgrst.CodeJWTClaims, "JWT expired", nil)
	case errors.Is(err, token.ErrAudience):
		return jwtError(pgrst.CodeJWTClaims, "JWT not in audience", nil)
	case errors.Is(err, token.ErrNotYetValid):
		return jwtError(pgrst.CodeJWTClaims, "JWT not yet valid", nil)
	case errors.Is(err, token.ErrIssuedInFuture):
		return jwtError(pgrst.CodeJWTClaims, "JWT issued at future", nil)
	case errors.Is(err, token.ErrClaims):
		return jwtError(pgrst.CodeJWTClaims, "Parsing claims failed", nil)
	case errors.Is(err, token.ErrSignature):
		return jwtError(pgrst.CodeJWTInvalid, "JWT cryptographic operation failed", nil)
	default:
		return jwtError(pgrst.CodeJWTInvalid, "JWT couldn't be decoded", nil)
	}
}

// keyIs compares a presented bearer with an API key in constant time, as
// the apikey middleware does, so response timing reveals no prefix of the
// service-role key.
// Lengths are compared first: ConstantTimeCompare answers at once for
// different lengths anyway, and a user's token is never the length of a
// key, so the usual request converts neither string.
func keyIs(tok, key string) bool {
	return key != "" && len(tok) == len(key) && subtle.ConstantTimeCompare([]byte(tok), []byte(key)) == 1
}

// roleClaimsOf keeps each role's claims: an anonymous request's claims are
// the same bytes every time (a handful of roles at most, the anon role
// being a setting). Nothing writes to a request's claims.
var roleClaimsOf sync.Map

func roleClaims(role string) []byte {
	if b, ok := roleClaimsOf.Load(role); ok {
		return b.([]byte)
	}
	b, _ := json.Marshal(map[string]string{"role": role})
	roleClaimsOf.Store(role, b)
	return b
}
