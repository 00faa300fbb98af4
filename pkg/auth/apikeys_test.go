package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

// API keys that are JWTs, as Supabase's legacy anon and service_role keys
// are, pass the apikey check when any key of the set signed them: here an
// ES256 key imported from the project's old home, verifying only. Refused:
// a foreign signature, an expired key, a user's access token.
func TestJWTAPIKeysSignedByAnyKey(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	old, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(old)
	parsed, err := token.ParseKeyFile(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), "old-project", "", e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	e.withKeys(parsed[0].Key)
	e.h.(*echo.Echo).Use(OpaqueKeyGate(token.APIKeys{Anon: e.cfg.AnonKey, ServiceRole: e.cfg.ServiceRoleKey,
		Publishable: e.cfg.PublishableKey, Secret: e.cfg.SecretKey, Verifier: e.api.verifier}))

	now := e.clock.Now()
	sign := func(key *ecdsa.PrivateKey, role string, exp time.Time) string {
		tk := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "supabase", "role": role, "iat": now.Add(-24 * time.Hour).Unix(), "exp": exp.Unix()})
		tk.Header["kid"] = "old-project"
		s, err := tk.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	anon := sign(old, "anon", now.Add(5*365*24*time.Hour))
	service := sign(old, "service_role", now.Add(5*365*24*time.Hour))
	withKey := func(key string, r req) *response {
		if r.headers == nil {
			r.headers = map[string]string{}
		}
		r.headers["apikey"] = key
		return e.do(r)
	}
	withKey(anon, req{method: "GET", path: "/settings"}).expect(t, http.StatusOK, "")
	e.do(req{method: "GET", path: "/settings?apikey=" + anon, noKey: true}).expect(t, http.StatusOK, "")
	// The service_role key works as apikey and as the admin bearer.
	r := withKey(service, req{method: "GET", path: "/admin/users", bearer: service})
	r.expect(t, http.StatusOK, "")
	// As bearer on an admin route, an anon key is no administrator.
	withKey(anon, req{method: "GET", path: "/admin/users", bearer: anon}).expect(t, http.StatusForbidden, "")

	foreign, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	for name, key := range map[string]string{
		"foreign signature": sign(foreign, "anon", now.Add(time.Hour)),
		"expired":           sign(old, "anon", now.Add(-time.Hour)),
		"authenticated":     sign(old, "authenticated", now.Add(time.Hour)),
		"HS256, old secret": mustHS(t, "the-old-projects-jwt-secret-0123456789", jwt.MapClaims{"role": "anon", "exp": now.Add(time.Hour).Unix()}),
	} {
		r := withKey(key, req{method: "GET", path: "/settings"})
		r.expect(t, http.StatusUnauthorized, "invalid_api_key")
		if r.str("message") != "Invalid API key" {
			t.Errorf("%s: body %s", name, r.Body)
		}
	}
	// The same HS256 key signed with this gateway's JWT_SECRET passes,
	// though it is not the exact string the gateway derives.
	withKey(mustHS(t, testSecret, jwt.MapClaims{"role": "anon", "ref": "moved", "exp": now.Add(time.Hour).Unix()}),
		req{method: "GET", path: "/settings"}).expect(t, http.StatusOK, "")
}

func mustHS(t *testing.T, secret string, c jwt.MapClaims) string {
	t.Helper()
	s, err := token.Sign(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
