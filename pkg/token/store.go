package token

import (
	"context"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoSuchKey is a kid the store does not hold.
var ErrNoSuchKey = errors.New("token: no such signing key")

// ErrLegacyKey refuses to revoke the HS256 key: it is JWT_SECRET itself.
var ErrLegacyKey = errors.New("token: the legacy HS256 key is JWT_SECRET; change JWT_SECRET to retire it")

// Store keeps the asymmetric signing keys in auth.signing_keys, the private
// halves sealed with AES-256-GCM. The database, not files, holds them so
// that every gateway on one database sees the same keys: `labelbase keys
// rotate` on any host is picked up by all of them on their next reload.
type Store struct {
	pool *pgxpool.Pool
	aead cipher.AEAD
}

// NewStore returns a Store sealing keys under a key derived (HKDF-SHA256)
// from encryptionKey, normally SIGNING_KEYS_ENCRYPTION_KEY or else
// JWT_SECRET.
func NewStore(pool *pgxpool.Pool, encryptionKey string) (*Store, error) {
	if len(encryptionKey) < 32 {
		return nil, errors.New("token: the signing-key encryption key must be at least 32 characters")
	}
	k, err := hkdf.Key(sha256.New, []byte(encryptionKey), nil, "labelbase signing keys v1", 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Store{pool: pool, aead: aead}, nil
}

// seal encrypts der, binding it to the key's id and algorithm so a row's
// ciphertext cannot be moved to another row.
func (s *Store) seal(id, alg string, der []byte) []byte {
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return s.aead.Seal(nonce, nonce, der, []byte(id+"\x00"+alg))
}

func (s *Store) open(id, alg string, sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("sealed key too short")
	}
	return s.aead.Open(nil, sealed[:n], sealed[n:], []byte(id+"\x00"+alg))
}

// Load reads every stored key. A key that cannot be decrypted (a different
// encryption key) is an error, never skipped: a gateway that silently
// dropped keys would sign with an older one and refuse valid tokens.
func (s *Store) Load(ctx context.Context) ([]*Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, algorithm, private_key, created_at FROM auth.signing_keys ORDER BY created_at`)
	if err != nil {
		return nil, fmt.Errorf("token: load signing keys: %w", err)
	}
	type row struct {
		id, alg string
		sealed  []byte
		created time.Time
	}
	rs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.id, &x.alg, &x.sealed, &x.created)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("token: load signing keys: %w", err)
	}
	keys := make([]*Key, 0, len(rs))
	for _, r := range rs {
		der, err := s.open(r.id, r.alg, r.sealed)
		if err != nil {
			return nil, fmt.Errorf("token: signing key %s cannot be decrypted (was SIGNING_KEYS_ENCRYPTION_KEY or JWT_SECRET changed?)", r.id)
		}
		priv, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return nil, fmt.Errorf("token: signing key %s: %w", r.id, err)
		}
		signer, ok := priv.(crypto.Signer)
		if !ok {
			return nil, fmt.Errorf("token: signing key %s is not a signing key", r.id)
		}
		k, err := NewKey(r.id, r.alg, r.created, signer)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Add stores k; it becomes the current key of every gateway once they
// reload.
func (s *Store) Add(ctx context.Context, k *Key) error {
	if k.signer == nil {
		return errors.New("token: only asymmetric keys are stored")
	}
	der, err := x509.MarshalPKCS8PrivateKey(k.signer)
	if err != nil {
		return err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO auth.signing_keys (id, algorithm, private_key, created_at) VALUES ($1, $2, $3, $4)`,
		k.ID, k.Alg, s.seal(k.ID, k.Alg, der), k.CreatedAt)
	if err != nil {
		return fmt.Errorf("token: store signing key: %w", err)
	}
	return nil
}

// Rotate generates a key of alg, stores it and returns it. Tokens signed
// by older keys stay valid until they expire or their key is revoked.
func (s *Store) Rotate(ctx context.Context, alg string) (*Key, error) {
	k, err := GenerateKey(alg, time.Now())
	if err != nil {
		return nil, err
	}
	return k, s.Add(ctx, k)
}

// Revoke deletes the key kid: every token it signed is refused from the
// next reload on.
func (s *Store) Revoke(ctx context.Context, kid string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM auth.signing_keys WHERE id = $1`, kid)
	if err != nil {
		return fmt.Errorf("token: revoke signing key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNoSuchKey
	}
	return nil
}

// Watch makes ks follow the store: it loads now, re-reads on an unknown
// kid, and every interval until ctx ends. A failed periodic reload keeps
// the keys it had and logs through onErr.
func (s *Store) Watch(ctx context.Context, ks *KeySet, interval time.Duration, onErr func(error)) {
	load := func() ([]*Key, error) {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		return s.Load(c)
	}
	ks.SetLoader(load)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			keys, err := load()
			if err != nil {
				onErr(err)
				continue
			}
			ks.Replace(keys)
		}
	}
}
