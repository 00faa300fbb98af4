package config_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/config"
)

// JWT_KEYS in the shape self-hosted Supabase's add-new-auth-keys.sh writes
// (an EC P-256 key with key_ops sign, and JWT_SECRET as a kid-less oct
// key), given inline or as JWT_KEYS_FILE. The EC key is the P-256 example
// key of RFC 7517, appendix A.2.
const selfHostedJWTKeys = `[{"kty":"EC","kid":"3d1f3c0e-9a0b-4c1e-8f6a-5b2d7e9c1a40","use":"sig","key_ops":["sign","verify"],"alg":"ES256","ext":true,` +
	`"crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",` +
	`"d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"},{"kty":"oct","k":"` + "%s" + `","alg":"HS256"}]`

func TestJWTKeys(t *testing.T) {
	t.Parallel()
	value := strings.Replace(selfHostedJWTKeys, "%s", base64.RawURLEncoding.EncodeToString([]byte(secret)), 1)
	f := filepath.Join(t.TempDir(), "jwt_keys.json")
	if err := os.WriteFile(f, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]map[string]string{
		"inline": {"JWT_KEYS": value},
		"file":   {"JWT_KEYS_FILE": f},
	} {
		e["DATABASE_URL"], e["JWT_SECRET"] = "postgres://u@h/db", secret
		c, err := config.Load(env(e))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(c.JWTKeys) != 2 || c.JWTKeys[0].ID != "3d1f3c0e-9a0b-4c1e-8f6a-5b2d7e9c1a40" || c.JWTKeys[0].VerifiesOnly() {
			t.Fatalf("%s: JWTKeys = %+v", name, c.JWTKeys)
		}
	}
	// Unset and self-hosted's default "[]" mean none.
	for _, v := range []string{"", "[]"} {
		c, err := config.Load(env(map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret, "JWT_KEYS": v}))
		if err != nil || len(c.JWTKeys) != 0 {
			t.Fatalf("JWT_KEYS=%q: %v, %v", v, c.JWTKeys, err)
		}
	}
}

// Every bad key is reported, one line each, under the setting's name, and
// no line repeats key material.
func TestJWTKeysErrors(t *testing.T) {
	t.Parallel()
	foreign := base64.RawURLEncoding.EncodeToString([]byte("a-shared-secret-that-is-not-JWT_SECRET"))
	value := strings.Replace(selfHostedJWTKeys, "%s", foreign, 1)
	value = strings.Replace(value, `"crv":"P-256"`, `"crv":"P-384"`, 1)
	_, err := config.Load(env(map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret, "JWT_KEYS": value}))
	if err == nil {
		t.Fatal("bad JWT_KEYS accepted")
	}
	msg := err.Error()
	for _, want := range []string{
		`JWT_KEYS: key #1 (kid "3d1f3c0e-9a0b-4c1e-8f6a-5b2d7e9c1a40"): unsupported crv "P-384"`,
		"JWT_KEYS: key #2: an oct key without a kid must be JWT_SECRET",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if len(strings.Split(msg, "\n")) != 2 {
		t.Errorf("want one line per bad key:\n%s", msg)
	}
	for _, material := range []string{"jpsQnnGQmL", foreign, secret} {
		if strings.Contains(msg, material) {
			t.Errorf("the error repeats key material %q:\n%s", material, msg)
		}
	}
	_, err = config.Load(env(map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret, "JWT_KEYS": `{"keys": [`}))
	if err == nil || !strings.Contains(err.Error(), "JWT_KEYS: not valid JSON") {
		t.Errorf("truncated JSON: %v", err)
	}
}
