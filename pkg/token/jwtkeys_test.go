package token_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

// JWT_KEYS as self-hosted Supabase's add-new-auth-keys.sh writes it: the
// EC private key with key_ops sign and verify, and JWT_SECRET as a
// kid-less oct key. The EC key signs; the oct key is the legacy key.
func TestJWTKeysSelfHostedShape(t *testing.T) {
	t.Parallel()
	ecMap, ecKey := ecJWK(t, "5c7f3b9e-0d4e-4a8b-9a3e-1f2d3c4b5a69", true, "sign", "verify")
	oct := map[string]any{"kty": "oct", "k": b64u([]byte(secret)), "alg": "HS256"}
	keys, err := token.ParseJWTKeys(string(mustJSON(t, []any{ecMap, oct})), secret)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[1].ID != token.LegacyKeyID(secret) || !keys[0].Configured() || keys[0].VerifiesOnly() {
		t.Fatalf("keys = %+v %+v", keys[0], keys[1])
	}
	ks := token.NewKeySet(secret, keys...)
	// A stored key, newer than anything, does not outrank the signer
	// JWT_KEYS names (GoTrue signs with it whatever else exists).
	ks.Replace([]*token.Key{genKey(t, token.ES256, time.Now())})
	if ks.Current().ID != "5c7f3b9e-0d4e-4a8b-9a3e-1f2d3c4b5a69" {
		t.Fatalf("current = %s", ks.Current().ID)
	}
	v := token.NewKeySetVerifier(ks, "", nil)
	raw, err := ks.Sign(userClaims())
	if err != nil || header(t, raw)["alg"] != "ES256" {
		t.Fatal(header(t, raw), err)
	}
	// Tokens the self-hosted project issued verify: ES256 with the kid,
	// and legacy HS256 without one.
	now := time.Now()
	claims := jwt.MapClaims{"sub": "u3", "role": "authenticated", "exp": now.Add(time.Hour).Unix()}
	before := signWith(t, jwt.SigningMethodES256, "5c7f3b9e-0d4e-4a8b-9a3e-1f2d3c4b5a69", ecKey, claims)
	legacy, _ := token.Sign(secret, claims)
	for name, tok := range map[string]string{"ES256": before, "HS256": legacy} {
		if got, err := v.Verify(tok); err != nil || got.Subject != "u3" {
			t.Errorf("%s token of the old project: %v", name, err)
		}
	}
	// "[]", self-hosted's default, and the empty string mean no keys.
	for _, empty := range []string{"", "[]", " [ ] "} {
		if keys, err := token.ParseJWTKeys(empty, secret); err != nil || keys != nil {
			t.Errorf("%q: %v, %v", empty, keys, err)
		}
	}
}

// An HS256 key with its own kid verifies, and signs when marked so; a set
// with no signing key only verifies (GoTrue would refuse it).
func TestJWTKeysSharedSecretWithKid(t *testing.T) {
	t.Parallel()
	other := "another-shared-secret-of-32-bytes-or-more"
	oct := map[string]any{"kty": "oct", "kid": "hs-2025", "k": b64u([]byte(other)), "alg": "HS256", "key_ops": []string{"verify"}}
	keys, err := token.ParseJWTKeys(string(mustJSON(t, []any{oct})), secret)
	if err != nil {
		t.Fatal(err)
	}
	ks := token.NewKeySet(secret, keys...)
	if ks.Current() != ks.Legacy() {
		t.Fatalf("a verify-only set must leave the legacy key signing; current = %s", ks.Current().ID)
	}
	claims := jwt.MapClaims{"sub": "u4", "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()}
	tok := signWith(t, jwt.SigningMethodHS256, "hs-2025", []byte(other), claims)
	if _, err := token.NewKeySetVerifier(ks, "", nil).Verify(tok); err != nil {
		t.Fatalf("HS256 token with the configured kid: %v", err)
	}
	if !strings.Contains(string(ks.JWKS()), `"keys":[]`) {
		t.Fatalf("a shared secret is never published: %s", ks.JWKS())
	}
	oct["key_ops"] = []string{"sign", "verify"}
	keys, _ = token.ParseJWTKeys(string(mustJSON(t, []any{oct})), secret)
	ks = token.NewKeySet(secret, keys...)
	raw, _ := ks.Sign(userClaims())
	if h := header(t, raw); h["kid"] != "hs-2025" || h["alg"] != "HS256" {
		t.Fatalf("signed by %v", h)
	}
}

// Each bad key is reported, by position and kid, and no message repeats
// key material.
func TestJWTKeysErrors(t *testing.T) {
	t.Parallel()
	a, _ := ecJWK(t, "a", true, "sign")
	b, _ := ecJWK(t, "b", true, "sign")
	pub, _ := ecJWK(t, "pub", false, "sign")
	foreignOct := map[string]any{"kty": "oct", "k": b64u([]byte("not-the-jwt-secret-but-long-enough-1234")), "alg": "HS256"}
	shortOct := map[string]any{"kty": "oct", "kid": "short", "k": b64u([]byte("short"))}
	okp := map[string]any{"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
	cases := []struct {
		name  string
		value string
		want  []string
	}{
		{"two signers", string(mustJSON(t, []any{a, b})), []string{`2 keys have key_ops "sign" (a, b)`}},
		{"several bad keys", string(mustJSON(t, []any{pub, foreignOct, shortOct, okp})), []string{
			`key #1 (kid "pub"): a public key cannot sign`,
			"key #2: an oct key without a kid must be JWT_SECRET",
			`key #3 (kid "short"): an HS256 secret must be at least 32 bytes`,
			`key #4 (kid "ed"): unsupported kty "OKP"`,
		}},
		{"not JSON", `[{"kty":"oct","k":"` + b64u([]byte("hunter2-hunter2-hunter2-hunter2-xx")), []string{"not valid JSON (at byte"}},
		{"a string", `"eyJhbGciOi"`, []string{"not a JWK"}},
		{"same kid twice", string(mustJSON(t, []any{with2k(a), with2k(a)})), []string{`kid "a" appears twice`}},
	}
	for _, c := range cases {
		_, err := token.ParseJWTKeys(c.value, secret)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: err = %v; want %q", c.name, err, w)
			}
		}
		for _, material := range []string{a["d"].(string), foreignOct["k"].(string), shortOct["k"].(string), b64u([]byte("hunter2-hunter2"))[:12]} {
			if strings.Contains(err.Error(), material) {
				t.Errorf("%s: the error repeats key material: %v", c.name, err)
			}
		}
	}
	var ke *token.KeyError
	_, err := token.ParseJWTKeys(string(mustJSON(t, []any{shortOct})), secret)
	if !errors.As(err, &ke) || ke.Index != 1 || ke.Kid != "short" {
		t.Fatalf("KeyError = %+v from %v", ke, err)
	}
}

// A stored key that JWT_KEYS names too must be the same key.
func TestCheckShadowed(t *testing.T) {
	t.Parallel()
	m, _ := ecJWK(t, "shared", true)
	configured, err := token.ParseJWTKeys(string(mustJSON(t, []any{m})), secret)
	if err != nil {
		t.Fatal(err)
	}
	same, _ := token.ParseKeyFile(mustJSON(t, m), "", "", time.Now())
	other, _ := ecJWK(t, "shared", true)
	different, _ := token.ParseKeyFile(mustJSON(t, other), "", "", time.Now())
	if err := token.CheckShadowed([]*token.Key{same[0].Key}, configured); err != nil {
		t.Errorf("the same key twice: %v", err)
	}
	if err := token.CheckShadowed([]*token.Key{different[0].Key}, configured); err == nil || !strings.Contains(err.Error(), `kid "shared"`) {
		t.Errorf("a different key under the same kid: %v", err)
	}
}

// API keys that are JWTs: any key of the set may have signed them, as
// long as they are valid now and say anon or service_role.
func TestResolveJWTAPIKeys(t *testing.T) {
	t.Parallel()
	ecMap, ecKey := ecJWK(t, "imported", true)
	parsed, err := token.ParseKeyFile(mustJSON(t, ecMap), "", "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	ks := token.NewKeySet(secret)
	ks.Replace([]*token.Key{parsed[0].Key})
	keys := token.APIKeys{Anon: token.APIKey(secret, "anon"), ServiceRole: token.APIKey(secret, "service_role"),
		Verifier: token.NewKeySetVerifier(ks, "", nil)}
	now := time.Now()
	apiKey := func(role string, exp time.Time) jwt.MapClaims {
		return jwt.MapClaims{"iss": "supabase", "ref": "abcdefghijklmnopqrst", "role": role, "iat": now.Add(-time.Hour).Unix(), "exp": exp.Unix()}
	}
	_, foreign := ecJWK(t, "imported", true)
	oldSecret := "the-jwt-secret-of-the-old-project-0123456789"
	cases := []struct {
		name, key, want string
		ok              bool
	}{
		{"anon, imported ES256", signWith(t, jwt.SigningMethodES256, "imported", ecKey, apiKey("anon", now.Add(time.Hour))), keys.Anon, true},
		{"service_role, imported ES256", signWith(t, jwt.SigningMethodES256, "imported", ecKey, apiKey("service_role", now.Add(time.Hour))), keys.ServiceRole, true},
		{"anon, JWT_SECRET but not our string", hsSign(t, secret, apiKey("anon", now.Add(24*time.Hour))), keys.Anon, true},
		{"foreign signature under a known kid", signWith(t, jwt.SigningMethodES256, "imported", foreign, apiKey("anon", now.Add(time.Hour))), "", false},
		{"another project's secret", hsSign(t, oldSecret, apiKey("service_role", now.Add(time.Hour))), "", false},
		{"expired", signWith(t, jwt.SigningMethodES256, "imported", ecKey, apiKey("anon", now.Add(-time.Hour))), "", false},
		{"a user's access token", signWith(t, jwt.SigningMethodES256, "imported", ecKey, apiKey("authenticated", now.Add(time.Hour))), "", false},
		{"the configured anon key itself", keys.Anon, "", false},
		{"not a JWT", "sb_publishable_x", "", false},
	}
	for _, c := range cases {
		got, ok := keys.ResolveJWT(c.key)
		if ok != c.ok || (ok && got != c.want) || (!ok && got != c.key) {
			t.Errorf("%s: ResolveJWT = %.20q…, %v", c.name, got, ok)
		}
	}
	if _, ok := (token.APIKeys{Anon: "a", ServiceRole: "s"}).ResolveJWT(cases[0].key); ok {
		t.Error("without a Verifier no JWT is admitted")
	}
}

func hsSign(t *testing.T, secret string, c jwt.MapClaims) string {
	t.Helper()
	s, err := token.Sign(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
