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

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNoSuchKey is a kid the store does not hold.
var ErrNoSuchKey = errors.New("token: no such signing key")

// ErrDuplicateKey is a kid already in use.
var ErrDuplicateKey = errors.New("token: a signing key with this kid exists already")

// ErrCannotSign is a key that cannot become the signer: only its public
// half is known.
var ErrCannotSign = errors.New("token: only the public half of this key is stored; it verifies but cannot sign")

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
	rows, err := s.pool.Query(ctx, `SELECT id, algorithm, private_key, public_key, created_at, signs_from
		FROM auth.signing_keys ORDER BY created_at`)
	if err != nil {
		return nil, fmt.Errorf("token: load signing keys: %w", err)
	}
	type row struct {
		id, alg         string
		private, public []byte
		created         time.Time
		signsFrom       *time.Time
	}
	rs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.id, &x.alg, &x.private, &x.public, &x.created, &x.signsFrom)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("token: load signing keys: %w", err)
	}
	keys := make([]*Key, 0, len(rs))
	for _, r := range rs {
		k, err := s.unseal(r.id, r.alg, r.private, r.public, r.created)
		if err != nil {
			return nil, err
		}
		k.SignsFrom = time.Time{}
		if r.signsFrom != nil {
			k.SignsFrom = *r.signsFrom
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// unseal opens a stored row: a private key (PKCS#8) or, for a key that
// only verifies, a public one (PKIX), sealed alike so that a row written
// without the encryption key is refused rather than trusted.
func (s *Store) unseal(id, alg string, private, public []byte, created time.Time) (*Key, error) {
	sealed, aad := private, alg
	if private == nil {
		sealed, aad = public, alg+publicAAD
	}
	der, err := s.open(id, aad, sealed)
	if err != nil {
		return nil, fmt.Errorf("token: signing key %s cannot be decrypted (was SIGNING_KEYS_ENCRYPTION_KEY or JWT_SECRET changed?)", id)
	}
	if private == nil {
		pub, err := x509.ParsePKIXPublicKey(der)
		if err != nil {
			return nil, fmt.Errorf("token: signing key %s: %w", id, err)
		}
		return NewPublicKey(id, alg, created, pub)
	}
	priv, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("token: signing key %s: %w", id, err)
	}
	signer, ok := priv.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("token: signing key %s is not a signing key", id)
	}
	return NewKey(id, alg, created, signer)
}

// publicAAD tells a sealed public key from a sealed private one.
const publicAAD = "\x00public"

// Add stores k; it becomes the current key of every gateway once they
// reload.
func (s *Store) Add(ctx context.Context, k *Key) error {
	if k.signer == nil {
		return errors.New("token: only asymmetric private keys are stored by Add")
	}
	return s.insert(ctx, s.pool, k)
}

// dbExec is a pool or a transaction.
type dbExec interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

func (s *Store) insert(ctx context.Context, db dbExec, k *Key) error {
	var private, public []byte
	switch {
	case k.signer != nil:
		der, err := x509.MarshalPKCS8PrivateKey(k.signer)
		if err != nil {
			return err
		}
		private = s.seal(k.ID, k.Alg, der)
	case k.public != nil:
		der, err := x509.MarshalPKIXPublicKey(k.public)
		if err != nil {
			return err
		}
		public = s.seal(k.ID, k.Alg+publicAAD, der)
	default:
		return fmt.Errorf("token: key %s: symmetric keys are never stored", k.ID)
	}
	var signsFrom *time.Time
	if !k.VerifiesOnly() {
		signsFrom = &k.SignsFrom
	}
	_, err := db.Exec(ctx, `INSERT INTO auth.signing_keys (id, algorithm, private_key, public_key, created_at, signs_from)
		VALUES ($1, $2, $3, $4, $5, $6)`, k.ID, k.Alg, private, public, k.CreatedAt, signsFrom)
	if err != nil {
		if pgErr, ok := errors.AsType[*pgconn.PgError](err); ok && pgErr.Code == pgerrcode.UniqueViolation {
			return fmt.Errorf("%w: %s", ErrDuplicateKey, k.ID)
		}
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

// Import stores keys in one transaction: all of them or, on any error
// (a kid already stored included), none. The keys whose SignsFrom is set
// become candidates to sign; the latest signs.
func (s *Store) Import(ctx context.Context, keys []*Key) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		for _, k := range keys {
			if err := s.insert(ctx, tx, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// Use makes the stored key kid the signer from now on (a key imported to
// verify only, or one a rotation replaced). Tokens signed by the key
// before stay valid, as do the other keys' tokens.
func (s *Store) Use(ctx context.Context, kid string) error {
	var private bool
	err := s.pool.QueryRow(ctx, `UPDATE auth.signing_keys SET signs_from = CASE WHEN private_key IS NULL THEN NULL ELSE now() END
		WHERE id = $1 RETURNING private_key IS NOT NULL`, kid).Scan(&private)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return ErrNoSuchKey
	case err != nil:
		return fmt.Errorf("token: use signing key: %w", err)
	case !private:
		return ErrCannotSign
	}
	return nil
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
