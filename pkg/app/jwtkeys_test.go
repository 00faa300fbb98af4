package app_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/token"
)

const gatewaySecret = "gateways-secret-gateways-secret-0123456789"

// selfHostedKeys is JWT_KEYS as self-hosted Supabase writes it for kid:
// an EC key with key_ops sign and verify, and JWT_SECRET as an oct key.
func selfHostedKeys(t *testing.T, kid string) (string, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := k.PublicKey.Bytes()
	d, _ := k.Bytes()
	b64 := base64.RawURLEncoding.EncodeToString
	b, _ := json.Marshal([]map[string]any{
		{"kty": "EC", "kid": kid, "use": "sig", "key_ops": []string{"sign", "verify"}, "alg": "ES256", "ext": true,
			"crv": "P-256", "x": b64(pt[1:33]), "y": b64(pt[33:]), "d": b64(d)},
		{"kty": "oct", "k": b64([]byte(gatewaySecret)), "alg": "HS256"},
	})
	return string(b), k
}

// A gateway started with JWT_KEYS signs with its signing key, publishes
// it, and accepts what the self-hosted project issued with it: access
// tokens and the ES256 API keys its Kong used.
func TestGatewayWithJWTKeys(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	user := pgtest.CreateUser(t, db.Pool, "moved@example.test", "correct horse battery")
	keys, ec := selfHostedKeys(t, "8a1e7f2c-self-hosted")
	g := startGateway(t, db.URL, map[string]string{"JWT_KEYS": keys}, false, nil)

	status, tk := g.grant(t, "password", jsonBody(map[string]string{"email": "moved@example.test", "password": "correct horse battery"}))
	if status != 200 {
		t.Fatalf("sign-in: %d %+v", status, tk)
	}
	var h map[string]any
	head, _ := base64.RawURLEncoding.DecodeString(strings.Split(tk.AccessToken, ".")[0])
	_ = json.Unmarshal(head, &h)
	if h["kid"] != "8a1e7f2c-self-hosted" || h["alg"] != "ES256" {
		t.Fatalf("the session is signed by %v; want JWT_KEYS's signing key", h)
	}
	if _, body := g.call(t, "GET", "/auth/v1/.well-known/jwks.json", ""); !strings.Contains(string(body), `"kid":"8a1e7f2c-self-hosted"`) {
		t.Fatalf("JWKS = %s", body)
	}

	sign := func(claims jwt.MapClaims) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims)
		tok.Header["kid"] = "8a1e7f2c-self-hosted"
		s, err := tok.SignedString(ec)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	now := time.Now()
	before := sign(jwt.MapClaims{"sub": user, "role": "authenticated", "aud": "authenticated", "exp": now.Add(time.Hour).Unix()})
	if status, body := g.call(t, "GET", "/rest/v1/user_follow_labels?select=label_id", "", "Authorization", "Bearer "+before); status != 200 {
		t.Fatalf("a token issued before the move: %d %s", status, body)
	}
	serviceKey := sign(jwt.MapClaims{"iss": "supabase", "role": "service_role", "iat": now.Unix(), "exp": now.Add(5 * 365 * 24 * time.Hour).Unix()})
	if status, body := g.call(t, "GET", "/rest/v1/invite_codes?select=code", "", "apikey", serviceKey, "Authorization", "Bearer "+serviceKey); status != 200 {
		t.Fatalf("SERVICE_ROLE_KEY_ASYMMETRIC as the API key: %d %s", status, body)
	}
}

// A stored key and a different JWT_KEYS key under one kid: the gateway
// refuses to start rather than let one silently replace the other.
func TestGatewayRefusesShadowedKid(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	keys, _ := selfHostedKeys(t, "same-kid")
	cfg := configtest.New(t, map[string]string{"DATABASE_URL": db.URL, "JWT_SECRET": gatewaySecret, "JWT_KEYS": keys, "CRAWL_DISABLED": "true"})
	store, err := token.NewStore(db.Pool, cfg.SigningKeysEncryptionKey)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := token.GenerateKey(token.ES256, time.Now())
	other.ID = "same-kid"
	if err := store.Add(ctx, other); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		a.Close()
		t.Fatal("the gateway started with a kid both stored and in JWT_KEYS")
	}
	if !strings.Contains(err.Error(), `JWT_KEYS: kid "same-kid"`) {
		t.Fatalf("err = %v", err)
	}
}
