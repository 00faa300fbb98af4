// Package token signs and verifies the JWTs that Supabase clients carry:
// user access tokens issued by /auth/v1 (ES256 or RS256 from the key set,
// or HS256 from JWT_SECRET) and the anon and service-role API keys. Both
// the auth and the REST side verify through one Verifier over one KeySet,
// so the rules (algorithm tied to kid, 30 s clock skew, audience) are
// decided once.
package token

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Leeway is the clock skew tolerated on exp, nbf and iat, as PostgREST does.
const Leeway = 30 * time.Second

// Errors a Verifier returns; callers map them to their own wire codes.
var (
	// ErrMissing means no token was presented.
	ErrMissing = errors.New("token: missing")
	// ErrMalformed covers anything that is not a well-formed JWT with a
	// valid signature by a key of the set, in that key's own algorithm:
	// alg "none", other algorithms and unknown or revoked kids included.
	ErrMalformed = errors.New("token: malformed or badly signed")
	// ErrExpired means exp (plus leeway) has passed.
	ErrExpired = errors.New("token: expired")
	// ErrClaims means the claims are unacceptable: wrong audience, nbf or
	// iat in the future, or a missing role.
	ErrClaims = errors.New("token: invalid claims")

	// The particular claim failures, each also an ErrClaims.
	ErrAudience       = fmt.Errorf("%w: not in audience", ErrClaims)
	ErrNotYetValid    = fmt.Errorf("%w: not valid yet", ErrClaims)
	ErrIssuedInFuture = fmt.Errorf("%w: issued in the future", ErrClaims)
	// ErrSignature is a well-formed token with a wrong signature; also an
	// ErrMalformed.
	ErrSignature = fmt.Errorf("%w: signature invalid", ErrMalformed)
)

// AMREntry is one authentication method reference, as GoTrue writes them.
type AMREntry struct {
	Method    string `json:"method"`
	Timestamp int64  `json:"timestamp"`
}

// Claims are GoTrue's access-token claims.
type Claims struct {
	jwt.RegisteredClaims
	Email        string         `json:"email"`
	Phone        string         `json:"phone"`
	AppMetadata  map[string]any `json:"app_metadata"`
	UserMetadata map[string]any `json:"user_metadata"`
	Role         string         `json:"role"`
	AAL          string         `json:"aal,omitempty"`
	AMR          []AMREntry     `json:"amr,omitempty"`
	SessionID    string         `json:"session_id,omitempty"`
	IsAnonymous  bool           `json:"is_anonymous"`
}

// Sign returns the compact HS256 JWT for claims.
func Sign(secret string, claims jwt.Claims) (string, error) {
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		return "", fmt.Errorf("token: sign: %w", err)
	}
	return s, nil
}

// apiKeyIssuedAt and apiKeyExpiresAt pin the derived API keys' times so the
// same JWT_SECRET always yields the same keys, across restarts and hosts.
var (
	apiKeyIssuedAt  = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	apiKeyExpiresAt = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// APIKey returns the API key JWT for role ("anon" or "service_role") that
// JWT_SECRET implies, shaped like Supabase's: {iss, ref, role, iat, exp}.
func APIKey(secret, role string) string {
	ref := fmt.Sprintf("%x", sha256.Sum256([]byte("labelbase-ref:"+secret)))[:20]
	s, err := Sign(secret, jwt.MapClaims{
		"iss":  "labelbase",
		"ref":  ref,
		"role": role,
		"iat":  apiKeyIssuedAt.Unix(),
		"exp":  apiKeyExpiresAt.Unix(),
	})
	if err != nil {
		// HS256 signing with a string key cannot fail.
		panic(err)
	}
	return s
}

// Verified is what a valid token says.
type Verified struct {
	// Claims are the token's claims, decoded.
	Claims map[string]any
	// JSON is the claims object exactly as request.jwt.claims should hold it.
	JSON []byte
	// Role is the claims' role.
	Role string
	// Subject is the sub claim, empty for API keys.
	Subject string
	// SessionID is the session_id claim, empty for API keys.
	SessionID string
	// Expires is the exp claim, zero when absent.
	Expires time.Time
	// KeyID is the kid of the key that signed the token.
	KeyID string
}

// Verifier checks tokens against a KeySet and caches the ones it accepted
// until they expire (or their key is revoked), so the hot path of a busy
// client skips the signature and JSON work.
type Verifier struct {
	keys     *KeySet
	audience string
	now      func() time.Time

	mu    sync.Mutex
	cache map[string]*Verified
}

// NewVerifier returns a Verifier for tokens signed with secret. When
// audience is non-empty, tokens that carry an aud claim must include it;
// API keys carry none and pass.
func NewVerifier(secret, audience string, now func() time.Time) *Verifier {
	return NewKeySetVerifier(NewKeySet(secret), audience, now)
}

// NewKeySetVerifier returns a Verifier for tokens signed by any key of keys.
func NewKeySetVerifier(keys *KeySet, audience string, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	return &Verifier{keys: keys, audience: audience, now: now, cache: map[string]*Verified{}}
}

// Keys is the key set the Verifier checks against.
func (v *Verifier) Keys() *KeySet { return v.keys }

const maxCached = 10000

// maxCachedTokenBytes keeps the cache's memory bounded (maxCached times
// this): larger tokens, e.g. with bulky user_metadata, are verified every
// time instead.
const maxCachedTokenBytes = 8 << 10

// Verify checks raw and returns its claims.
func (v *Verifier) Verify(raw string) (*Verified, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, ErrMissing
	}
	now := v.now()
	v.mu.Lock()
	if got, ok := v.cache[raw]; ok {
		v.mu.Unlock()
		if !got.Expires.IsZero() && now.After(got.Expires.Add(Leeway)) {
			v.forget(raw)
			return nil, ErrExpired
		}
		if !v.keys.has(got.KeyID) {
			v.forget(raw)
			return nil, ErrSignature
		}
		return got, nil
	}
	v.mu.Unlock()

	got, err := v.parse(raw, now)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxCachedTokenBytes {
		return got, nil
	}
	v.mu.Lock()
	if len(v.cache) >= maxCached {
		clear(v.cache)
	}
	v.cache[raw] = got
	v.mu.Unlock()
	return got, nil
}

// forget drops an expired token from the cache.
func (v *Verifier) forget(raw string) {
	v.mu.Lock()
	delete(v.cache, raw)
	v.mu.Unlock()
}

func (v *Verifier) parse(raw string, now time.Time) (*Verified, error) {
	claims := jwt.MapClaims{}
	var kid string
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		key, err := v.keys.keyFunc(t)
		if err == nil {
			kid, _ = t.Header["kid"].(string)
			if kid == "" {
				kid = v.keys.legacy.ID
			}
		}
		return key, err
	},
		jwt.WithValidMethods([]string{ES256, RS256, HS256}),
		jwt.WithLeeway(Leeway),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(func() time.Time { return now }),
		jwt.WithJSONNumber(),
	)
	switch {
	case err == nil:
	case errors.Is(err, jwt.ErrTokenExpired):
		return nil, ErrExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return nil, ErrNotYetValid
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return nil, ErrIssuedInFuture
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		return nil, fmt.Errorf("%w: %w", ErrClaims, err)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, errUnknownKey):
		return nil, ErrSignature
	default:
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	if v.audience != "" {
		if aud, err := claims.GetAudience(); err == nil && len(aud) > 0 && !contains(aud, v.audience) {
			return nil, fmt.Errorf("%w: %v", ErrAudience, []string(aud))
		}
	}
	role, _ := claims["role"].(string)
	if role == "" {
		return nil, fmt.Errorf("%w: no role claim", ErrClaims)
	}
	js, err := json.Marshal(claims)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	out := &Verified{Claims: claims, JSON: js, Role: role, KeyID: kid}
	out.Subject, _ = claims["sub"].(string)
	out.SessionID, _ = claims["session_id"].(string)
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		out.Expires = exp.Time
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
