package token_test

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func genKey(t *testing.T, alg string, at time.Time) *token.Key {
	t.Helper()
	k, err := token.GenerateKey(alg, at)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func userClaims() jwt.MapClaims {
	return jwt.MapClaims{"sub": "u1", "role": "authenticated", "iat": t0.Unix(), "exp": t0.Add(time.Hour).Unix()}
}

func header(t *testing.T, raw string) map[string]any {
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

// With no stored key the legacy HS256 key signs, with its kid, and the
// token verifies with a plain JWT_SECRET verifier too: a JWT_SECRET-only
// deployment is unchanged.
func TestLegacyKeySignsWhenNoneStored(t *testing.T) {
	t.Parallel()
	ks := token.NewKeySet(secret)
	raw, err := ks.Sign(userClaims())
	if err != nil {
		t.Fatal(err)
	}
	h := header(t, raw)
	if h["alg"] != "HS256" || h["kid"] != token.LegacyKeyID(secret) {
		t.Fatalf("header = %v", h)
	}
	if strings.Contains(token.LegacyKeyID(secret), secret[:8]) {
		t.Fatal("the legacy kid must not reveal the secret")
	}
	for _, v := range []*token.Verifier{token.NewKeySetVerifier(ks, "", func() time.Time { return t0 }), token.NewVerifier(secret, "", func() time.Time { return t0 })} {
		got, err := v.Verify(raw)
		if err != nil || got.Subject != "u1" || got.KeyID != token.LegacyKeyID(secret) {
			t.Fatalf("verify: %+v, %v", got, err)
		}
	}
}

func TestAsymmetricSigning(t *testing.T) {
	t.Parallel()
	for _, alg := range []string{token.ES256, token.RS256} {
		t.Run(alg, func(t *testing.T) {
			t.Parallel()
			ks := token.NewKeySet(secret)
			k := genKey(t, alg, t0)
			ks.Replace([]*token.Key{k})
			if ks.Current() != k {
				t.Fatal("the stored key must be current")
			}
			raw, err := ks.Sign(userClaims())
			if err != nil {
				t.Fatal(err)
			}
			if h := header(t, raw); h["alg"] != alg || h["kid"] != k.ID {
				t.Fatalf("header = %v", h)
			}
			v := token.NewKeySetVerifier(ks, "", func() time.Time { return t0 })
			if got, err := v.Verify(raw); err != nil || got.KeyID != k.ID || got.Role != "authenticated" {
				t.Fatalf("verify: %+v, %v", got, err)
			}
			// Legacy API keys (HS256, no kid) keep working beside it.
			if _, err := v.Verify(token.APIKey(secret, "anon")); err != nil {
				t.Fatalf("legacy anon key: %v", err)
			}
			// A JWT_SECRET-only verifier does not know the key.
			if _, err := token.NewVerifier(secret, "", func() time.Time { return t0 }).Verify(raw); !errors.Is(err, token.ErrSignature) {
				t.Fatalf("unknown kid: %v", err)
			}
		})
	}
}

func TestNewestKeySigns(t *testing.T) {
	t.Parallel()
	ks := token.NewKeySet(secret)
	old, newer := genKey(t, token.ES256, t0), genKey(t, token.RS256, t0.Add(time.Minute))
	ks.Replace([]*token.Key{newer, old})
	if ks.Current() != newer {
		t.Fatalf("current = %s; want the newest %s", ks.Current().ID, newer.ID)
	}
	keys := ks.Keys()
	if len(keys) != 3 || keys[0] != newer {
		t.Fatalf("keys = %v", keys)
	}
}

// Rotation: a token signed before still verifies; once its key is revoked
// it is refused, even though the verifier had cached it.
func TestRotationAndRevocation(t *testing.T) {
	t.Parallel()
	ks := token.NewKeySet(secret)
	first := genKey(t, token.ES256, t0)
	ks.Replace([]*token.Key{first})
	v := token.NewKeySetVerifier(ks, "", func() time.Time { return t0 })
	before, _ := ks.Sign(userClaims())
	if _, err := v.Verify(before); err != nil {
		t.Fatal(err)
	}

	second := genKey(t, token.ES256, t0.Add(time.Minute))
	ks.Replace([]*token.Key{first, second})
	after, _ := ks.Sign(userClaims())
	if header(t, after)["kid"] != second.ID {
		t.Fatal("after rotation the new key must sign")
	}
	for name, raw := range map[string]string{"before": before, "after": after} {
		if _, err := v.Verify(raw); err != nil {
			t.Fatalf("token issued %s rotation: %v", name, err)
		}
	}

	ks.Replace([]*token.Key{second}) // revoke first
	if _, err := v.Verify(before); !errors.Is(err, token.ErrSignature) {
		t.Fatalf("token of a revoked key (cached): %v", err)
	}
	if _, err := token.NewKeySetVerifier(ks, "", func() time.Time { return t0 }).Verify(before); !errors.Is(err, token.ErrSignature) {
		t.Fatalf("token of a revoked key (fresh verifier): %v", err)
	}
	if _, err := v.Verify(after); err != nil {
		t.Fatalf("the remaining key's token: %v", err)
	}
}

// A kid the set does not know makes it ask its loader once, so a key
// another gateway just added is found.
func TestUnknownKidReloads(t *testing.T) {
	t.Parallel()
	ks := token.NewKeySet(secret)
	other := token.NewKeySet(secret)
	k := genKey(t, token.ES256, t0)
	other.Replace([]*token.Key{k})
	raw, _ := other.Sign(userClaims())
	calls := 0
	ks.SetLoader(func() ([]*token.Key, error) { calls++; return []*token.Key{k}, nil })
	if _, err := token.NewKeySetVerifier(ks, "", func() time.Time { return t0 }).Verify(raw); err != nil || calls != 1 {
		t.Fatalf("verify = %v after %d loads", err, calls)
	}
}

// Security cases: each forged token is refused.
func TestForgedTokensRefused(t *testing.T) {
	t.Parallel()
	ks := token.NewKeySet(secret)
	ec, rs := genKey(t, token.ES256, t0), genKey(t, token.RS256, t0)
	ks.Replace([]*token.Key{ec, rs})
	v := token.NewKeySetVerifier(ks, "", func() time.Time { return t0 })

	// alg confusion: HMAC "signed" with the public key's bytes, as a
	// verifier that trusted the header's alg would check it.
	hmacWith := func(key []byte, kid string) string {
		tk := jwt.NewWithClaims(jwt.SigningMethodHS256, userClaims())
		if kid != "" {
			tk.Header["kid"] = kid
		}
		s, err := tk.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var confusion []string
	for _, k := range []*token.Key{ec, rs} {
		der, err := x509.MarshalPKIXPublicKey(k.Signer().Public())
		if err != nil {
			t.Fatal(err)
		}
		confusion = append(confusion, hmacWith(der, k.ID), hmacWith(der, ""), hmacWith(ks.JWKS(), k.ID))
	}
	// A key that was never in the set, claiming a real kid.
	stranger := token.NewKeySet(secret)
	impostor := genKey(t, token.ES256, t0)
	stranger.Replace([]*token.Key{impostor})
	forgedKid := func() string {
		tk := jwt.NewWithClaims(jwt.SigningMethodES256, userClaims())
		tk.Header["kid"] = ec.ID
		s, _ := tk.SignedString(impostor.Signer())
		return s
	}()
	removed, _ := stranger.Sign(userClaims())
	none := func(kid string) string {
		h := `{"alg":"none","typ":"JWT","kid":"` + kid + `"}`
		return base64.RawURLEncoding.EncodeToString([]byte(h)) + "." +
			base64.RawURLEncoding.EncodeToString([]byte(`{"role":"service_role"}`)) + "."
	}
	rsAsES := func() string { // an RS256 signature presented under the EC key's kid
		tk := jwt.NewWithClaims(jwt.SigningMethodRS256, userClaims())
		tk.Header["kid"] = ec.ID
		s, _ := tk.SignedString(rs.Signer())
		return s
	}()

	cases := map[string]string{
		"alg none with a kid":      none(ec.ID),
		"alg none without kid":     none(""),
		"key not in the set":       removed,
		"wrong key under real kid": forgedKid,
		"RS256 under an ES256 kid": rsAsES,
		"kid that is not a string": mustSign(t, jwt.MapClaims{"role": "anon"}, map[string]any{"kid": 7}),
		"legacy kid, wrong secret": hmacWith([]byte("another-secret-another-secret-000"), token.LegacyKeyID(secret)),
	}
	for i, c := range confusion {
		cases["alg confusion "+string(rune('a'+i))] = c
	}
	for name, raw := range cases {
		if got, err := v.Verify(raw); err == nil {
			t.Errorf("%s: accepted as %+v", name, got)
		} else if !errors.Is(err, token.ErrMalformed) {
			t.Errorf("%s: err = %v; want a malformed/signature error", name, err)
		}
	}
}

func mustSign(t *testing.T, c jwt.MapClaims, hdr map[string]any) string {
	t.Helper()
	tk := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	for k, v := range hdr {
		tk.Header[k] = v
	}
	s, err := tk.SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The JWKS lists the public halves of the asymmetric keys and nothing
// secret: no HMAC key, no private exponent.
func TestJWKS(t *testing.T) {
	t.Parallel()
	ks := token.NewKeySet(secret)
	if got := string(ks.JWKS()); got != `{"keys":[]}` {
		t.Fatalf("JWKS with only the legacy key = %s", got)
	}
	ec, rs := genKey(t, token.ES256, t0), genKey(t, token.RS256, t0.Add(time.Second))
	ks.Replace([]*token.Key{ec, rs})
	raw := ks.JWKS()
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	if len(set.Keys) != 2 {
		t.Fatalf("JWKS = %s", raw)
	}
	byKid := map[string]map[string]any{}
	for _, k := range set.Keys {
		byKid[k["kid"].(string)] = k
		for _, private := range []string{"d", "p", "q", "dp", "dq", "qi", "k"} {
			if _, ok := k[private]; ok {
				t.Errorf("JWK %v has private member %q", k["kid"], private)
			}
		}
		if k["use"] != "sig" {
			t.Errorf("JWK use = %v", k["use"])
		}
	}
	e := byKid[ec.ID]
	if e["kty"] != "EC" || e["crv"] != "P-256" || e["alg"] != "ES256" || len(e["x"].(string)) != 43 || len(e["y"].(string)) != 43 {
		t.Errorf("EC JWK = %v", e)
	}
	r := byKid[rs.ID]
	if r["kty"] != "RSA" || r["alg"] != "RS256" || r["e"] != "AQAB" || len(r["n"].(string)) != 342 {
		t.Errorf("RSA JWK = %v", r)
	}
	if strings.Contains(string(raw), secret) || strings.Contains(string(raw), "HS256") {
		t.Errorf("JWKS leaks the legacy key: %s", raw)
	}
}

func TestOpaqueKeys(t *testing.T) {
	t.Parallel()
	keys := token.APIKeys{Anon: "anon-jwt", ServiceRole: "service-jwt",
		Publishable: token.OpaqueKey(secret, token.PublishablePrefix), Secret: token.OpaqueKey(secret, token.SecretPrefix)}
	if !strings.HasPrefix(keys.Publishable, "sb_publishable_") || !strings.HasPrefix(keys.Secret, "sb_secret_") {
		t.Fatalf("keys = %+v", keys)
	}
	if keys.Secret == token.OpaqueKey("ffffffffffffffffffffffffffffffff", token.SecretPrefix) {
		t.Fatal("the derived key must depend on the secret")
	}
	cases := []struct {
		in, want   string
		secret, ok bool
	}{
		{keys.Publishable, "anon-jwt", false, true},
		{keys.Secret, "service-jwt", true, true},
		{"sb_secret_guess", "sb_secret_guess", false, false},
		{keys.Secret + "x", keys.Secret + "x", false, false},
		{"anon-jwt", "anon-jwt", false, false},
		{"", "", false, false},
	}
	for _, c := range cases {
		got, sec, ok := keys.Resolve(c.in)
		if got != c.want || sec != c.secret || ok != c.ok {
			t.Errorf("Resolve(%q) = %q, %v, %v", c.in, got, sec, ok)
		}
	}
	if _, _, ok := (token.APIKeys{}).Resolve("sb_secret_"); ok {
		t.Error("an unset secret key must match nothing")
	}
}
