package token_test

import (
	"context"
	"crypto/x509"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/token"
)

// Imported keys go into auth.signing_keys as rotated ones do, keep their
// kid and their part: a key that only verifies stays so across a reload,
// a public key is kept as such, and `keys use` makes a key sign later.
func TestStoreImportAndUse(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	s, _ := token.NewStore(db.Pool, secret)
	load := func() *token.KeySet {
		t.Helper()
		keys, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ks := token.NewKeySet(secret)
		ks.Replace(keys)
		return ks
	}
	rotated, err := s.Rotate(ctx, token.ES256)
	if err != nil {
		t.Fatal(err)
	}
	privMap, privKey := rsaJWK(t, "old-rsa", true)
	pubMap, pubKey := ecJWK(t, "old-ec-public", false)
	parsed, err := token.ParseKeyFile(mustJSON(t, []any{privMap, pubMap}), "", "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Import(ctx, []*token.Key{parsed[0].Key, parsed[1].Key}); err != nil {
		t.Fatal(err)
	}
	ks := load()
	if ks.Current().ID != rotated.ID {
		t.Fatalf("an import without --current changed the signer to %s", ks.Current().ID)
	}
	claims := jwt.MapClaims{"sub": "u5", "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()}
	v := token.NewKeySetVerifier(ks, "", nil)
	for _, raw := range []string{
		signWith(t, jwt.SigningMethodRS256, "old-rsa", privKey, claims),
		signWith(t, jwt.SigningMethodES256, "old-ec-public", pubKey, claims),
	} {
		if _, err := v.Verify(raw); err != nil {
			t.Fatalf("a token of an imported key after the reload: %v", err)
		}
	}

	// The public key is stored sealed, like a private one.
	var public []byte
	if err := db.Pool.QueryRow(ctx, `SELECT public_key FROM auth.signing_keys WHERE id = 'old-ec-public'`).Scan(&public); err != nil {
		t.Fatal(err)
	}
	if _, err := x509.ParsePKIXPublicKey(public); err == nil {
		t.Fatal("the public key is stored unsealed: a row written without the encryption key would be trusted")
	}

	// Nothing half-written: one kid already stored stops the whole import.
	fresh, _ := ecJWK(t, "fresh", true)
	again, _ := token.ParseKeyFile(mustJSON(t, []any{fresh, privMap}), "", "", time.Now())
	if err := s.Import(ctx, []*token.Key{again[0].Key, again[1].Key}); !errors.Is(err, token.ErrDuplicateKey) {
		t.Fatalf("importing a stored kid again: %v", err)
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM auth.signing_keys WHERE id = 'fresh'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the other key of a refused import was stored (%d, %v)", n, err)
	}

	// keys use: the imported private key signs from now on.
	if err := s.Use(ctx, "old-rsa"); err != nil {
		t.Fatal(err)
	}
	ks = load()
	raw, _ := ks.Sign(userClaims())
	if h := header(t, raw); ks.Current().ID != "old-rsa" || h["kid"] != "old-rsa" || h["alg"] != "RS256" {
		t.Fatalf("after keys use: current %s, header %v", ks.Current().ID, h)
	}
	if err := s.Use(ctx, "old-ec-public"); !errors.Is(err, token.ErrCannotSign) {
		t.Fatalf("a public key made to sign: %v", err)
	}
	if err := s.Use(ctx, "nope"); !errors.Is(err, token.ErrNoSuchKey) {
		t.Fatalf("an unknown kid: %v", err)
	}
	// A later rotation takes over, and keys use gives it back.
	if _, err := s.Rotate(ctx, token.ES256); err != nil {
		t.Fatal(err)
	}
	if load().Current().ID == "old-rsa" {
		t.Fatal("a rotation after keys use did not take over")
	}
	if err := s.Use(ctx, "old-rsa"); err != nil || load().Current().ID != "old-rsa" {
		t.Fatalf("keys use again: %v", err)
	}

	// An imported --current key signs at once.
	cur, _ := ecJWK(t, "imported-current", true)
	pc, _ := token.ParseKeyFile(mustJSON(t, cur), "", "", time.Now())
	pc[0].Key.SignsFrom = time.Now().Add(time.Second)
	if err := s.Import(ctx, []*token.Key{pc[0].Key}); err != nil {
		t.Fatal(err)
	}
	if load().Current().ID != "imported-current" {
		t.Fatal("an import with --current does not sign")
	}

	// The table refuses a public key that would sign.
	if _, err := db.Pool.Exec(ctx, `UPDATE auth.signing_keys SET signs_from = now() WHERE id = 'old-ec-public'`); err == nil {
		t.Fatal("a public key was allowed to sign")
	}
}
