package token_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/token"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Two gateways (two stores, two key sets) on one database agree: a key
// rotated in through one signs tokens the other verifies after its reload,
// and a revocation reaches both.
func TestStoreSharedByGateways(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	encKey := secret
	a, err := token.NewStore(db.Pool, encKey)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := token.NewStore(db.Pool, encKey)
	ksA, ksB := token.NewKeySet(secret), token.NewKeySet(secret)
	reload := func(s *token.Store, ks *token.KeySet) {
		t.Helper()
		keys, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ks.Replace(keys)
	}

	legacyToken, _ := ksA.Sign(userClaims())
	k1, err := a.Rotate(ctx, token.ES256)
	if err != nil {
		t.Fatal(err)
	}
	reload(a, ksA)
	reload(b, ksB)
	if ksA.Current().ID != k1.ID || ksB.Current().ID != k1.ID {
		t.Fatalf("current = %s / %s; want %s", ksA.Current().ID, ksB.Current().ID, k1.ID)
	}
	vB := token.NewKeySetVerifier(ksB, "", func() time.Time { return t0 })
	tok1, _ := ksA.Sign(userClaims())
	for name, raw := range map[string]string{"legacy": legacyToken, "k1": tok1} {
		if _, err := vB.Verify(raw); err != nil {
			t.Fatalf("%s token on the other gateway: %v", name, err)
		}
	}

	k2, err := b.Rotate(ctx, token.RS256)
	if err != nil {
		t.Fatal(err)
	}
	reload(a, ksA)
	if ksA.Current().ID != k2.ID || ksA.Current().Alg != token.RS256 {
		t.Fatalf("after the second rotation current = %s", ksA.Current().ID)
	}
	if err := a.Revoke(ctx, k1.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.Revoke(ctx, k1.ID); !errors.Is(err, token.ErrNoSuchKey) {
		t.Fatalf("revoking twice: %v", err)
	}
	reload(b, ksB)
	if len(ksB.Keys()) != 2 {
		t.Fatalf("keys after revoke = %d; want legacy + k2", len(ksB.Keys()))
	}
	if _, err := vB.Verify(tok1); !errors.Is(err, token.ErrSignature) {
		t.Fatalf("token of the revoked key: %v", err)
	}
}

// Keys are sealed: another encryption key cannot load them, and the
// private key is not in the row in the clear.
func TestStoreEncryptsAtRest(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	s, _ := token.NewStore(db.Pool, secret)
	k, err := s.Rotate(ctx, token.ES256)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := token.NewStore(db.Pool, "ffffffffffffffffffffffffffffffff")
	if _, err := other.Load(ctx); err == nil || !strings.Contains(err.Error(), "cannot be decrypted") {
		t.Fatalf("load with another encryption key: %v", err)
	}
	// A row whose ciphertext was moved to another id does not open either.
	if _, err := db.Pool.Exec(ctx, `INSERT INTO auth.signing_keys (id, algorithm, private_key, created_at)
		SELECT 'moved', algorithm, private_key, created_at + interval '1 second' FROM auth.signing_keys WHERE id = $1`, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx); err == nil {
		t.Fatal("a ciphertext moved to another row was accepted")
	}
	if _, err := token.NewStore(db.Pool, "short"); err == nil {
		t.Fatal("a short encryption key was accepted")
	}
	var n int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM auth.signing_keys WHERE created_at <= $1`, time.Now().Add(time.Hour)).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows = %d, %v", n, err)
	}
}

// Only the owner reads the table: service_role through /rest/v1 must not.
func TestSigningKeysHiddenFromAPIRoles(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec(ctx, "SET LOCAL ROLE "+role)
		if err == nil {
			_, err = tx.Exec(ctx, `SELECT * FROM auth.signing_keys`)
		}
		_ = tx.Rollback(ctx)
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("%s reading auth.signing_keys: %v", role, err)
		}
	}
}
