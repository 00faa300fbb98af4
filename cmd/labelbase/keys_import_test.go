package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/token"
)

// ecJWKFile writes an EC P-256 key as `supabase gen signing-key` prints
// it; private false leaves out "d", as a JWKS publishes it.
func ecJWKFile(t *testing.T, dir, kid string, private bool) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := k.PublicKey.Bytes()
	m := map[string]any{"kty": "EC", "kid": kid, "use": "sig", "key_ops": []string{"sign", "verify"}, "alg": "ES256", "ext": true,
		"crv": "P-256", "x": base64.RawURLEncoding.EncodeToString(pt[1:33]), "y": base64.RawURLEncoding.EncodeToString(pt[33:])}
	if private {
		d, _ := k.Bytes()
		m["d"] = base64.RawURLEncoding.EncodeToString(d)
	} else {
		m["key_ops"] = []string{"verify"}
	}
	b, _ := json.Marshal(m)
	f := filepath.Join(dir, kid+".json")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// keys import, keys use and the listing, as an operator moving a project
// in runs them.
func TestKeysImport(t *testing.T) {
	db := pgtest.New(t)
	const secret = "0123456789abcdef0123456789abcdef"
	t.Setenv("JWT_SECRET", secret)
	t.Setenv("LABELBASE_DATA_DIR", t.TempDir())
	dir := t.TempDir()
	legacy := token.LegacyKeyID(secret)

	ecFile := ecJWKFile(t, dir, "c8e6d1e2-old-ec", true)
	out, err := runCLI(t, db.URL, "keys", "import", ecFile)
	if err != nil || strings.TrimSpace(out) != "c8e6d1e2-old-ec\tES256\tverifies" {
		t.Fatalf("keys import: %q, %v", out, err)
	}
	out, _ = runCLI(t, db.URL, "keys")
	if !regexp.MustCompile(`c8e6d1e2-old-ec\s+ES256\s+\S+\s+verifies\n`).MatchString(out) ||
		!regexp.MustCompile(legacy+`\s+HS256\s+JWT_SECRET\s+current \(legacy\)`).MatchString(out) {
		t.Fatalf("an import without --current must only verify:\n%s", out)
	}

	// A PEM key (openssl's PKCS#1), named with --kid, made current.
	rs, _ := rsa.GenerateKey(rand.Reader, 2048)
	pemFile := filepath.Join(dir, "rsa.pem")
	if err := os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rs)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err = runCLI(t, db.URL, "keys", "import", "--kid", "old-rsa", "--current", pemFile); err != nil || strings.TrimSpace(out) != "old-rsa\tRS256\tcurrent" {
		t.Fatalf("keys import --current: %q, %v", out, err)
	}
	out, _ = runCLI(t, db.URL, "keys")
	if !regexp.MustCompile(`old-rsa\s+RS256\s+\S+\s+current\n`).MatchString(out) {
		t.Fatalf("the --current key does not sign:\n%s", out)
	}

	// A public key verifies, and cannot be made to sign.
	pubFile := ecJWKFile(t, dir, "hosted-public", false)
	if _, err = runCLI(t, db.URL, "keys", "import", "--current", pubFile); err == nil || !strings.Contains(err.Error(), "no private key to sign with") {
		t.Fatalf("a public key imported as current: %v", err)
	}
	if _, err = runCLI(t, db.URL, "keys", "import", pubFile); err != nil {
		t.Fatal(err)
	}
	out, _ = runCLI(t, db.URL, "keys")
	if !regexp.MustCompile(`hosted-public\s+ES256\s+\S+\s+verifies \(public key only\)`).MatchString(out) {
		t.Fatalf("the public key's listing:\n%s", out)
	}
	if _, err = runCLI(t, db.URL, "keys", "use", "hosted-public"); !errors.Is(err, token.ErrCannotSign) {
		t.Fatalf("keys use on a public key: %v", err)
	}

	// keys use switches to the key imported to verify.
	if out, err = runCLI(t, db.URL, "keys", "use", "c8e6d1e2-old-ec"); err != nil || !strings.Contains(out, "signing with c8e6d1e2-old-ec") {
		t.Fatalf("keys use: %q, %v", out, err)
	}
	out, _ = runCLI(t, db.URL, "keys")
	if !regexp.MustCompile(`c8e6d1e2-old-ec\s+ES256\s+\S+\s+current\n`).MatchString(out) ||
		!regexp.MustCompile(`old-rsa\s+RS256\s+\S+\s+verifies\n`).MatchString(out) {
		t.Fatalf("after keys use:\n%s", out)
	}

	// Nothing half-written: a set with a new key and a stored kid stores neither.
	fresh := ecJWKFile(t, dir, "fresh", true)
	freshJSON, _ := os.ReadFile(fresh)
	oldJSON, _ := os.ReadFile(ecFile)
	setFile := filepath.Join(dir, "set.json")
	if err := os.WriteFile(setFile, []byte(`{"keys":[`+string(freshJSON)+`,`+string(oldJSON)+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err = runCLI(t, db.URL, "keys", "import", setFile); err == nil || !strings.Contains(err.Error(), "c8e6d1e2-old-ec") || !strings.Contains(err.Error(), "nothing was imported") {
		t.Fatalf("a set with a stored kid: %v", err)
	}
	if out, _ = runCLI(t, db.URL, "keys"); strings.Contains(out, "fresh") {
		t.Fatalf("half an import was written:\n%s", out)
	}

	// Bad input and usage.
	badFile := filepath.Join(dir, "ed25519.json")
	_ = os.WriteFile(badFile, []byte(`{"kty":"OKP","crv":"Ed25519","kid":"ed","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}`), 0o600)
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"unsupported kty": {[]string{"keys", "import", badFile}, `unsupported kty "OKP"`},
		"legacy kid":      {[]string{"keys", "import", "--kid", legacy, fresh}, "legacy key of JWT_SECRET"},
		"no such file":    {[]string{"keys", "import", filepath.Join(dir, "nope.json")}, "no such file"},
		"unknown kid":     {[]string{"keys", "use", "nope"}, `no stored signing key "nope"`},
	} {
		if _, err := runCLI(t, db.URL, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
	}
	for _, args := range [][]string{{"keys", "import"}, {"keys", "import", "a", "b"}, {"keys", "use"}, {"keys", "import", "--sideways", fresh}} {
		var ue usageError
		if _, err := runCLI(t, db.URL, args...); !errors.As(err, &ue) {
			t.Errorf("%q: err = %v; want a usage error", args, err)
		}
	}

	// Self-hosted Supabase's JWT_KEYS value as a file: its EC key imports;
	// its oct key, JWT_SECRET itself, is left out.
	shEC, _ := os.ReadFile(ecJWKFile(t, dir, "self-hosted", true))
	shFile := filepath.Join(dir, "jwt_keys.json")
	oct := `{"kty":"oct","k":"` + base64.RawURLEncoding.EncodeToString([]byte(secret)) + `","alg":"HS256"}`
	if err := os.WriteFile(shFile, []byte("["+string(shEC)+","+oct+"]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err = runCLI(t, db.URL, "keys", "import", "--current", shFile); err != nil || strings.TrimSpace(out) != "self-hosted\tES256\tcurrent" {
		t.Fatalf("self-hosted JWT_KEYS: %q, %v", out, err)
	}

	// JWT_KEYS: its keys are listed, and their kids are taken.
	envKey := ecJWKFile(t, dir, "from-env", true)
	b, _ := os.ReadFile(envKey)
	t.Setenv("JWT_KEYS", "["+string(b)+"]")
	out, _ = runCLI(t, db.URL, "keys")
	if !regexp.MustCompile(`from-env\s+ES256\s+JWT_KEYS\s+current\n`).MatchString(out) {
		t.Fatalf("JWT_KEYS's signing key in the listing:\n%s", out)
	}
	if _, err = runCLI(t, db.URL, "keys", "import", envKey); err == nil || !strings.Contains(err.Error(), "a key of JWT_KEYS") {
		t.Fatalf("importing a kid JWT_KEYS names: %v", err)
	}
	t.Setenv("JWT_KEYS", `[{"kty":"EC"}]`)
	if _, err = runCLI(t, db.URL, "keys"); err == nil || !strings.Contains(err.Error(), "JWT_KEYS: key #1") {
		t.Fatalf("a bad JWT_KEYS: %v", err)
	}
}
