package rest

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

// /rest/v1 verifies against the gateway's key set: tokens of its ES256 and
// RS256 keys run as their role; a revoked key's token, alg confusion and
// alg none are refused with PostgREST's 401.
func TestRESTVerifiesAgainstTheKeySet(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ec, err := token.GenerateKey(token.ES256, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := token.GenerateKey(token.RS256, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ks := token.NewKeySet(testSecret)
	ks.Replace([]*token.Key{ec})
	e.api.verifier = token.NewKeySetVerifier(ks, "authenticated", nil)
	claims := func() jwt.MapClaims {
		now := time.Now()
		return jwt.MapClaims{"sub": e.userA, "role": "authenticated", "aud": "authenticated",
			"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	}
	esTok, _ := ks.Sign(claims())
	ks.Replace([]*token.Key{ec, rs})
	rsTok, _ := ks.Sign(claims())

	// A labels read needs an accepted token (a refused one is a 401).
	whoami := func(tok string) resp {
		return e.do("GET", "/rest/v1/labels?select=id&limit=1", tok, "")
	}
	for name, tok := range map[string]string{"ES256": esTok, "RS256": rsTok, "legacy HS256": e.tokA} {
		if r := whoami(tok); r.status != http.StatusOK {
			t.Fatalf("%s token: %d %s", name, r.status, r.body)
		}
	}

	pub, _ := x509.MarshalPKIXPublicKey(ec.Signer().Public())
	confused := jwt.NewWithClaims(jwt.SigningMethodHS256, claims())
	confused.Header["kid"] = ec.ID
	confusedTok, _ := confused.SignedString(pub)
	noKid := jwt.NewWithClaims(jwt.SigningMethodHS256, claims())
	noKidTok, _ := noKid.SignedString(ks.JWKS())
	none := strings.Join([]string{b64json(t, map[string]any{"alg": "none", "kid": ec.ID}), b64json(t, claims()), ""}, ".")

	ks.Replace([]*token.Key{rs}) // revoke the EC key
	cases := map[string]string{
		"revoked key":               esTok,
		"HS256 with the public key": confusedTok,
		"HS256 keyed with the JWKS": noKidTok,
		"alg none under a real kid": none,
	}
	for name, tok := range cases {
		r := whoami(tok)
		if r.status != http.StatusUnauthorized || !strings.Contains(r.body, "PGRST301") || r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
	}
	if r := whoami(rsTok); r.status != http.StatusOK {
		t.Fatalf("the remaining key's token: %d %s", r.status, r.body)
	}
}

func b64json(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
