package token_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

// The test keys are written as the tools operators bring them from write
// them: `supabase gen signing-key` and self-hosted Supabase's
// add-new-auth-keys.sh (JWK members kty, kid, use, key_ops, alg, ext and
// the key's own), openssl (PEM). The JWKs are built here by hand, not by
// the JOSE library under test.

func b64u(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func ecJWK(t *testing.T, kid string, private bool, ops ...string) (map[string]any, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return ecMembers(k, kid, private, ops...), k
}

func ecMembers(k *ecdsa.PrivateKey, kid string, private bool, ops ...string) map[string]any {
	pt, _ := k.PublicKey.Bytes() // 0x04 || X || Y
	m := map[string]any{"kty": "EC", "use": "sig", "alg": "ES256", "ext": true, "crv": "P-256",
		"x": b64u(pt[1:33]), "y": b64u(pt[33:])}
	if kid != "" {
		m["kid"] = kid
	}
	if len(ops) > 0 {
		m["key_ops"] = ops
	}
	if private {
		d, _ := k.Bytes()
		m["d"] = b64u(d)
	}
	return m
}

func rsaJWK(t *testing.T, kid string, private bool, ops ...string) (map[string]any, *rsa.PrivateKey) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return rsaMembers(k, kid, private, ops...), k
}

func rsaMembers(k *rsa.PrivateKey, kid string, private bool, ops ...string) map[string]any {
	m := map[string]any{"kty": "RSA", "alg": "RS256", "use": "sig",
		"n": b64u(k.N.Bytes()), "e": b64u(big.NewInt(int64(k.E)).Bytes())}
	if kid != "" {
		m["kid"] = kid
	}
	if len(ops) > 0 {
		m["key_ops"] = ops
	}
	if private {
		k.Precompute()
		m["d"] = b64u(k.D.Bytes())
		m["p"] = b64u(k.Primes[0].Bytes())
		m["q"] = b64u(k.Primes[1].Bytes())
		m["dp"] = b64u(k.Precomputed.Dp.Bytes())
		m["dq"] = b64u(k.Precomputed.Dq.Bytes())
		m["qi"] = b64u(k.Precomputed.Qinv.Bytes())
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// signWith issues a token as the project did before it moved: signed with
// its own key, naming it by kid.
func signWith(t *testing.T, method jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	tk := jwt.NewWithClaims(method, claims)
	tk.Header["kid"] = kid
	s, err := tk.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Tokens signed before the move by an RS256 and an ES256 key are refused
// until the keys are imported, then verified; the imported keys only
// verify until one is made current.
func TestImportedJWKsVerifyTokensIssuedBefore(t *testing.T) {
	t.Parallel()
	ecMap, ecKey := ecJWK(t, "0b8a2e8c-6c55-4c0f-9a9d-2f2f3a1b0c01", true, "sign", "verify")
	rsMap, rsKey := rsaJWK(t, "rsa-2024", true)
	now := time.Now()
	claims := jwt.MapClaims{"sub": "u1", "role": "authenticated", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	esTok := signWith(t, jwt.SigningMethodES256, "0b8a2e8c-6c55-4c0f-9a9d-2f2f3a1b0c01", ecKey, claims)
	rsTok := signWith(t, jwt.SigningMethodRS256, "rsa-2024", rsKey, claims)

	ks := token.NewKeySet(secret)
	v := token.NewKeySetVerifier(ks, "", nil)
	for _, raw := range []string{esTok, rsTok} {
		if _, err := v.Verify(raw); !errors.Is(err, token.ErrSignature) {
			t.Fatalf("before the import: %v; want ErrSignature", err)
		}
	}
	for name, file := range map[string][]byte{
		"set":   mustJSON(t, map[string]any{"keys": []any{ecMap, rsMap}}),
		"array": mustJSON(t, []any{ecMap, rsMap}),
	} {
		parsed, err := token.ParseKeyFile(file, "", "", now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(parsed) != 2 || parsed[0].Key.ID != "0b8a2e8c-6c55-4c0f-9a9d-2f2f3a1b0c01" || parsed[0].Key.Alg != token.ES256 ||
			!parsed[0].Sign || parsed[1].Key.ID != "rsa-2024" || parsed[1].Key.Alg != token.RS256 || parsed[1].Sign {
			t.Fatalf("%s: parsed %+v %+v", name, parsed[0], parsed[1])
		}
		for _, p := range parsed {
			if p.Key.Signer() == nil || !p.Key.VerifiesOnly() {
				t.Fatalf("%s: key %s: want a private key that only verifies until told to sign", name, p.Key.ID)
			}
		}
		ks := token.NewKeySet(secret)
		ks.Replace([]*token.Key{parsed[0].Key, parsed[1].Key})
		if ks.Current() != ks.Legacy() {
			t.Fatalf("%s: an imported key signs without being told to: %s", name, ks.Current().ID)
		}
		v := token.NewKeySetVerifier(ks, "", nil)
		for _, raw := range []string{esTok, rsTok} {
			got, err := v.Verify(raw)
			if err != nil || got.Subject != "u1" {
				t.Fatalf("%s: after the import: %v, %+v", name, err, got)
			}
		}
		// The JWKS publishes both, so getClaims() verifies their tokens.
		jwks := string(ks.JWKS())
		if !strings.Contains(jwks, `"kid":"rsa-2024"`) || !strings.Contains(jwks, `"kid":"0b8a2e8c-6c55-4c0f-9a9d-2f2f3a1b0c01"`) {
			t.Fatalf("%s: JWKS = %s", name, jwks)
		}
		// Made current, the imported key signs with its own kid.
		signer, err := token.SigningKey(parsed)
		if err != nil || signer.ID != "0b8a2e8c-6c55-4c0f-9a9d-2f2f3a1b0c01" {
			t.Fatalf("%s: SigningKey = %v, %v; want the key marked sign", name, signer, err)
		}
		signer.SignsFrom = now
		ks.Replace([]*token.Key{parsed[0].Key, parsed[1].Key})
		raw, err := ks.Sign(userClaims())
		if err != nil || header(t, raw)["kid"] != signer.ID || header(t, raw)["alg"] != "ES256" {
			t.Fatalf("%s: signed by the imported key: %v %v", name, header(t, raw), err)
		}
	}
}

// A JWK without a kid is named by its RFC 7638 thumbprint: the SHA-256 of
// its required members in lexicographic order, without spaces.
func TestImportedKeyWithoutKidGetsItsThumbprint(t *testing.T) {
	t.Parallel()
	m, _ := rsaJWK(t, "", true)
	parsed, err := token.ParseKeyFile(mustJSON(t, m), "", "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(`{"e":"` + m["e"].(string) + `","kty":"RSA","n":"` + m["n"].(string) + `"}`))
	if got := parsed[0].Key.ID; got != b64u(sum[:]) {
		t.Fatalf("kid = %q; want the thumbprint %q", got, b64u(sum[:]))
	}
	// --kid names a single key instead.
	parsed, err = token.ParseKeyFile(mustJSON(t, m), "legacy-rsa", "", time.Now())
	if err != nil || parsed[0].Key.ID != "legacy-rsa" {
		t.Fatalf("with a kid: %v, %v", parsed, err)
	}
}

func pemOf(t *testing.T, typ string, der []byte) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// PEM keys in the forms openssl writes: PKCS#8, SEC 1 (after the EC
// PARAMETERS block `openssl ecparam -genkey` adds), PKCS#1 and a public key.
func TestImportPEM(t *testing.T) {
	t.Parallel()
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	pkcs8EC, _ := x509.MarshalPKCS8PrivateKey(ec)
	sec1, _ := x509.MarshalECPrivateKey(ec)
	pkcs8RSA, _ := x509.MarshalPKCS8PrivateKey(rs)
	pubEC, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	params := []byte("-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n")
	cases := []struct {
		name    string
		file    []byte
		alg     string
		private bool
	}{
		{"PKCS#8 EC", pemOf(t, "PRIVATE KEY", pkcs8EC), token.ES256, true},
		{"SEC 1 EC after EC PARAMETERS", append(params, pemOf(t, "EC PRIVATE KEY", sec1)...), token.ES256, true},
		{"PKCS#8 RSA", pemOf(t, "PRIVATE KEY", pkcs8RSA), token.RS256, true},
		{"PKCS#1 RSA", pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rs)), token.RS256, true},
		{"PKIX public EC", pemOf(t, "PUBLIC KEY", pubEC), token.ES256, false},
	}
	claims := jwt.MapClaims{"sub": "u2", "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()}
	for _, c := range cases {
		parsed, err := token.ParseKeyFile(c.file, "pem-key", "", time.Now())
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		k := parsed[0].Key
		if k.ID != "pem-key" || k.Alg != c.alg || (k.Signer() != nil) != c.private {
			t.Fatalf("%s: key %s %s private=%v", c.name, k.ID, k.Alg, k.Signer() != nil)
		}
		var raw string
		if c.alg == token.ES256 {
			raw = signWith(t, jwt.SigningMethodES256, "pem-key", ec, claims)
		} else {
			raw = signWith(t, jwt.SigningMethodRS256, "pem-key", rs, claims)
		}
		ks := token.NewKeySet(secret)
		ks.Replace([]*token.Key{k})
		if _, err := token.NewKeySetVerifier(ks, "", nil).Verify(raw); err != nil {
			t.Fatalf("%s: a token the key signed: %v", c.name, err)
		}
	}
}

// Bad input is refused with a message that says what is wrong, and never
// repeats the key material.
func TestImportRefusesBadKeys(t *testing.T) {
	t.Parallel()
	ecPriv, _ := ecJWK(t, "ec", true)
	ecPub, _ := ecJWK(t, "ec-pub", false, "sign", "verify")
	other, _ := ecJWK(t, "other", true)
	mismatched := map[string]any{}
	for k, v := range ecPriv {
		mismatched[k] = v
	}
	mismatched["d"] = other["d"]
	mismatched["kid"] = "mismatched"
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	ec384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	pkcs8P384, _ := x509.MarshalPKCS8PrivateKey(ec384)
	with := func(base map[string]any, k string, v any) []byte {
		m := map[string]any{}
		for a, b := range base {
			m[a] = b
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return mustJSON(t, m)
	}
	secretOct := "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0"
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"Ed25519", `unsupported kty "OKP"`, []byte(`{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","d":"nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"}`)},
		{"P-384", `unsupported crv "P-384"`, with(ecPriv, "crv", "P-384")},
		{"P-384 PEM", "P-256", pemOf(t, "PRIVATE KEY", pkcs8P384)},
		{"RS512", `unsupported alg "RS512"`, with(rsaMembers(small, "r", true), "alg", "RS512")},
		{"RSA 1024", "at least 2048 bits", mustJSON(t, rsaMembers(small, "small", true))},
		{"encryption key", `use "enc"`, with(ecPriv, "use", "enc")},
		{"key_ops without sign or verify", "neither sign nor verify", with(ecPriv, "key_ops", []string{"encrypt"})},
		{"oct", "symmetric (oct) key is not imported", []byte(`{"kty":"oct","kid":"hs","alg":"HS256","k":"` + secretOct + `"}`)},
		{"public key marked sign", "a public key cannot sign", mustJSON(t, ecPub)},
		{"d of another key", "does not match its public half", mustJSON(t, mismatched)},
		{"no kty", `no "kty"`, with(ecPriv, "kty", nil)},
		{"RSA without its primes", "missing P", with(rsaMembers(small, "r2", true), "p", nil)},
		{"bad base64", "invalid EC JWK", with(ecPriv, "x", "***")},
		{"not JSON", "not valid JSON (at byte", []byte(`{"kty":"EC","d":"` + ecPriv["d"].(string) + `"`)},
		{"empty set", "no keys", []byte(`{"keys":[]}`)},
		{"same kid twice", `kid "ec" appears twice`, mustJSON(t, []any{ecPriv, with2(ecPriv)})},
		{"kid with a space", "spaces or control characters", with(ecPriv, "kid", "my key")},
		{"not keys", "not a JWK", []byte("hello")},
		{"encrypted PEM", "encrypted", pemOf(t, "ENCRYPTED PRIVATE KEY", []byte{1, 2, 3})},
		{"certificate", `PEM block "CERTIFICATE"`, pemOf(t, "CERTIFICATE", []byte{1, 2, 3})},
		{"two PEM keys", "exactly one key", append(pemOf(t, "PRIVATE KEY", pkcs8P384), pemOf(t, "PRIVATE KEY", pkcs8P384)...)},
	}
	for _, c := range cases {
		_, err := token.ParseKeyFile(c.file, "", "", time.Now())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v; want %q", c.name, err, c.want)
			continue
		}
		for _, material := range []string{ecPriv["d"].(string), secretOct, "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"} {
			if strings.Contains(err.Error(), material) {
				t.Errorf("%s: the error repeats key material: %v", c.name, err)
			}
		}
	}
	// A kid given for a file with several keys is ambiguous.
	if _, err := token.ParseKeyFile(mustJSON(t, []any{ecPriv, other}), "one", "", time.Now()); err == nil {
		t.Error("a kid for two keys was accepted")
	}
}

// with2 is the same key material under the same kid, a second time.
func with2(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestSigningKeyChoice(t *testing.T) {
	t.Parallel()
	a, _ := ecJWK(t, "a", true)
	b, _ := ecJWK(t, "b", true, "sign")
	c, _ := ecJWK(t, "c", true, "sign")
	pub, _ := ecJWK(t, "pub", false)
	parse := func(keys ...any) []token.ParsedKey {
		t.Helper()
		p, err := token.ParseKeyFile(mustJSON(t, keys), "", "", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if k, err := token.SigningKey(parse(a, pub)); err != nil || k.ID != "a" {
		t.Errorf("the only private key: %v, %v", k, err)
	}
	if k, err := token.SigningKey(parse(a, b)); err != nil || k.ID != "b" {
		t.Errorf("the key marked sign: %v, %v", k, err)
	}
	for name, set := range map[string][]token.ParsedKey{"two marked": parse(b, c), "two unmarked": parse(a, with2k(b)), "public only": parse(pub)} {
		if k, err := token.SigningKey(set); err == nil {
			t.Errorf("%s: chose %s", name, k.ID)
		}
	}
}

// with2k is m without key_ops.
func with2k(m map[string]any) map[string]any {
	out := with2(m)
	delete(out, "key_ops")
	return out
}

// Self-hosted Supabase's JWT_KEYS, imported as a file: the EC key is
// stored; the kid-less oct key that is JWT_SECRET is left out (it verifies
// anyway), while any other shared secret is refused.
func TestImportSelfHostedJWTKeys(t *testing.T) {
	t.Parallel()
	ec, _ := ecJWK(t, "self-hosted-ec", true, "sign", "verify")
	own := map[string]any{"kty": "oct", "k": b64u([]byte(secret)), "alg": "HS256"}
	parsed, err := token.ParseKeyFile(mustJSON(t, []any{ec, own}), "", secret, time.Now())
	if err != nil || len(parsed) != 1 || parsed[0].Key.ID != "self-hosted-ec" {
		t.Fatalf("parsed %v, %v; want the EC key alone", parsed, err)
	}
	other := map[string]any{"kty": "oct", "k": b64u([]byte("some-other-shared-secret-0123456789")), "alg": "HS256"}
	if _, err := token.ParseKeyFile(mustJSON(t, []any{ec, other}), "", secret, time.Now()); err == nil || !strings.Contains(err.Error(), "key #2") {
		t.Fatalf("another shared secret: %v", err)
	}
	if _, err := token.ParseKeyFile(mustJSON(t, []any{own}), "", secret, time.Now()); err == nil || !strings.Contains(err.Error(), "only JWT_SECRET") {
		t.Fatalf("a file of JWT_SECRET alone: %v", err)
	}
}
