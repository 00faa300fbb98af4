package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

// withKeys points the environment's auth API at a key set holding keys.
func (e *testEnv) withKeys(keys ...*token.Key) *token.KeySet {
	e.t.Helper()
	ks := token.NewKeySet(testSecret)
	ks.Replace(keys)
	e.api.verifier = token.NewKeySetVerifier(ks, "", e.clock.Now)
	return ks
}

func newKey(t *testing.T, alg string, e *testEnv) *token.Key {
	t.Helper()
	k, err := token.GenerateKey(alg, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func tokenHeader(t *testing.T, raw string) map[string]any {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// ecFromJWK rebuilds a P-256 public key from a JWK, as a third party
// verifying through the JWKS would.
func ecFromJWK(t *testing.T, k map[string]any) *ecdsa.PublicKey {
	t.Helper()
	coord := func(name string) []byte {
		b, err := base64.RawURLEncoding.DecodeString(k[name].(string))
		if err != nil || len(b) != 32 {
			t.Fatalf("JWK %s: %d bytes, %v", name, len(b), err)
		}
		return b
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, coord("x")...), coord("y")...))
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

// An ES256-signing gateway: the session's access token carries the key's
// kid, verifies with the public key published at the JWKS, and /user
// accepts it.
func TestSessionSignedWithES256AndVerifiableViaJWKS(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	k := newKey(t, token.ES256, e)
	e.withKeys(k)
	s := e.signUp("es256@example.com", "password-1")
	access := s.str("access_token")
	if h := tokenHeader(t, access); h["alg"] != "ES256" || h["kid"] != k.ID || h["typ"] != "JWT" {
		t.Fatalf("header = %v", h)
	}

	r := e.do(req{method: "GET", path: "/.well-known/jwks.json"})
	r.expect(t, http.StatusOK, "")
	if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=") || !strings.Contains(cc, "public") {
		t.Errorf("Cache-Control = %q", cc)
	}
	keys, _ := r.JSON["keys"].([]any)
	if len(keys) != 1 {
		t.Fatalf("jwks = %s", r.Body)
	}
	jwk := keys[0].(map[string]any)
	if jwk["kid"] != k.ID || jwk["alg"] != "ES256" || jwk["kty"] != "EC" {
		t.Fatalf("jwk = %v", jwk)
	}
	pub := ecFromJWK(t, jwk)
	parsed, err := jwt.Parse(access, func(*jwt.Token) (any, error) { return pub, nil },
		jwt.WithValidMethods([]string{"ES256"}), jwt.WithTimeFunc(e.clock.Now))
	if err != nil || !parsed.Valid {
		t.Fatalf("verifying with the published key: %v", err)
	}
	e.do(req{method: "GET", path: "/user", bearer: access}).expect(t, http.StatusOK, "")
}

// The JWKS of a JWT_SECRET-only gateway is empty: the HMAC secret is never
// published.
func TestJWKSNeverListsTheHMACSecret(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	r := e.do(req{method: "GET", path: "/.well-known/jwks.json"})
	r.expect(t, http.StatusOK, "")
	if strings.TrimSpace(string(r.Body)) != `{"keys":[]}` {
		t.Fatalf("jwks = %s", r.Body)
	}
	s := e.signUp("legacy@example.com", "password-1")
	if h := tokenHeader(t, s.str("access_token")); h["alg"] != "HS256" || h["kid"] != token.LegacyKeyID(testSecret) {
		t.Fatalf("a JWT_SECRET-only gateway must keep signing HS256: %v", h)
	}
}

// Rotation: a token issued before stays valid; the next sign-in uses the
// new key; once the old key is revoked, its token is refused.
func TestRotationKeepsOldTokensUntilRevoked(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	old := newKey(t, token.ES256, e)
	ks := e.withKeys(old)
	before := e.signUp("rotate@example.com", "password-1").str("access_token")

	e.clock.Advance(1e9)
	fresh := newKey(t, token.RS256, e)
	ks.Replace([]*token.Key{old, fresh})
	e.do(req{method: "GET", path: "/user", bearer: before}).expect(t, http.StatusOK, "")
	after := e.signIn("rotate@example.com", "password-1").str("access_token")
	if h := tokenHeader(t, after); h["kid"] != fresh.ID || h["alg"] != "RS256" {
		t.Fatalf("after rotation: %v", h)
	}

	ks.Replace([]*token.Key{fresh})
	e.do(req{method: "GET", path: "/user", bearer: before}).expect(t, http.StatusForbidden, "bad_jwt")
	e.do(req{method: "GET", path: "/user", bearer: after}).expect(t, http.StatusOK, "")
}

// The opaque sb_ keys work at the apikey gate; a secret key from a browser
// is refused, readable by the page (CORS headers present).
func TestOpaqueAPIKeys(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	keys := token.APIKeys{Anon: e.cfg.AnonKey, ServiceRole: e.cfg.ServiceRoleKey,
		Publishable: e.cfg.PublishableKey, Secret: e.cfg.SecretKey}
	e.h.(*echo.Echo).Use(OpaqueKeyGate(keys))
	with := func(key string, headers map[string]string) *response {
		h := map[string]string{"apikey": key, "Authorization": "Bearer " + key}
		for k, v := range headers {
			h[k] = v
		}
		return e.do(req{method: "GET", path: "/settings", headers: h})
	}
	with(e.cfg.PublishableKey, nil).expect(t, http.StatusOK, "")
	with(e.cfg.PublishableKey, map[string]string{"Origin": "http://localhost:5173", "User-Agent": "Mozilla/5.0"}).expect(t, http.StatusOK, "")
	with(e.cfg.SecretKey, map[string]string{"User-Agent": "node"}).expect(t, http.StatusOK, "")
	with(e.cfg.ServiceRoleKey, map[string]string{"Origin": "http://localhost:5173"}).expect(t, http.StatusOK, "")

	for name, h := range map[string]map[string]string{
		"browser user agent": {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0"},
		"browser origin":     {"Origin": "http://localhost:5173", "User-Agent": "node"},
	} {
		r := with(e.cfg.SecretKey, h)
		r.expect(t, http.StatusUnauthorized, "invalid_api_key")
		if !strings.Contains(r.str("message"), "secret API key in browser") {
			t.Errorf("%s: body %s", name, r.Body)
		}
		if h["Origin"] != "" && r.Header.Get("Access-Control-Allow-Origin") == "" {
			t.Errorf("%s: refusal lacks CORS headers", name)
		}
	}
	// A secret key in Authorization only, from a browser, is refused too.
	e.do(req{method: "GET", path: "/settings", bearer: e.cfg.SecretKey,
		headers: map[string]string{"Origin": "http://localhost:5173"}}).expect(t, http.StatusUnauthorized, "invalid_api_key")
	// A made-up key of the right shape is just an invalid key.
	with("sb_secret_"+strings.Repeat("A", 32), nil).expect(t, http.StatusUnauthorized, "invalid_api_key")
	with("sb_publishable_nope", nil).expect(t, http.StatusUnauthorized, "invalid_api_key")

	// The JWKS needs no API key, as verifiers fetch it bare; nothing else
	// opens without one.
	e.do(req{method: "GET", path: "/.well-known/jwks.json", noKey: true}).expect(t, http.StatusOK, "")
	e.do(req{method: "GET", path: "/settings", noKey: true}).expect(t, http.StatusUnauthorized, "no_api_key")
}
