package token

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Signing algorithms a key may have. HS256 is only ever the legacy key
// derived from JWT_SECRET.
const (
	ES256 = "ES256"
	RS256 = "RS256"
	HS256 = "HS256"
)

// Key is one signing key of a KeySet.
type Key struct {
	// ID is the key's kid, written into the header of every token it signs.
	ID  string
	Alg string
	// CreatedAt is when the key was made or imported.
	CreatedAt time.Time
	// SignsFrom is when the key became the signer: of the keys that may
	// sign, the one with the latest SignsFrom does. Zero for a key that
	// only verifies (an imported key kept for the tokens issued before a
	// move, or a key a newer one replaced).
	SignsFrom time.Time

	signer crypto.Signer    // ES256, RS256 with the private half
	public crypto.PublicKey // ES256, RS256, with or without the private half
	secret []byte           // HS256
	// configured marks a key from JWT_KEYS: fixed at start, never stored.
	configured bool
}

// GenerateKey makes a fresh asymmetric key (ES256 on P-256, or RS256 with
// 2048-bit RSA) with a random kid.
func GenerateKey(alg string, now time.Time) (*Key, error) {
	var (
		s   crypto.Signer
		err error
	)
	switch alg {
	case ES256:
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case RS256:
		s, err = rsa.GenerateKey(rand.Reader, 2048)
	default:
		return nil, fmt.Errorf("token: unsupported signing algorithm %q (ES256 or RS256)", alg)
	}
	if err != nil {
		return nil, fmt.Errorf("token: generate %s key: %w", alg, err)
	}
	id := make([]byte, 12)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	now = now.UTC()
	return &Key{ID: base64.RawURLEncoding.EncodeToString(id), Alg: alg, CreatedAt: now, SignsFrom: now, signer: s, public: s.Public()}, nil
}

// NewKey wraps an existing private key, as the store reads them back. It
// signs from createdAt on; clear SignsFrom for a key that only verifies.
func NewKey(id, alg string, createdAt time.Time, signer crypto.Signer) (*Key, error) {
	if signer == nil {
		return nil, fmt.Errorf("token: key %s: no private key", id)
	}
	if err := checkPublic(id, alg, signer.Public()); err != nil {
		return nil, err
	}
	return &Key{ID: id, Alg: alg, CreatedAt: createdAt, SignsFrom: createdAt, signer: signer, public: signer.Public()}, nil
}

// NewPublicKey wraps the public half of a key, which only verifies: what a
// hosted Supabase project publishes of its keys.
func NewPublicKey(id, alg string, createdAt time.Time, pub crypto.PublicKey) (*Key, error) {
	if err := checkPublic(id, alg, pub); err != nil {
		return nil, err
	}
	return &Key{ID: id, Alg: alg, CreatedAt: createdAt, public: pub}, nil
}

// checkPublic admits the asymmetric keys Labelbase signs and verifies
// with: P-256 for ES256, RSA of 2048 bits or more for RS256.
func checkPublic(id, alg string, pub crypto.PublicKey) error {
	switch k := pub.(type) {
	case *ecdsa.PublicKey:
		if alg != ES256 || k.Curve != elliptic.P256() {
			return fmt.Errorf("token: key %s: an ECDSA key must be P-256 with alg ES256", id)
		}
	case *rsa.PublicKey:
		if alg != RS256 || k.N.BitLen() < 2048 {
			return fmt.Errorf("token: key %s: an RSA key must be at least 2048 bits with alg RS256", id)
		}
	default:
		return fmt.Errorf("token: key %s: unsupported key type %T", id, pub)
	}
	return nil
}

// Signer is the private key, for the store to encrypt; nil for HS256 and
// for a public key.
func (k *Key) Signer() crypto.Signer { return k.signer }

// Public is the public half of an asymmetric key; nil for HS256.
func (k *Key) Public() crypto.PublicKey { return k.public }

// VerifiesOnly reports whether the key never signs.
func (k *Key) VerifiesOnly() bool { return k.SignsFrom.IsZero() }

// Configured reports whether the key comes from JWT_KEYS.
func (k *Key) Configured() bool { return k.configured }

// canSign reports whether the key holds what signing takes.
func (k *Key) canSign() bool { return k.signer != nil || k.secret != nil }

// LegacyKeyID is the kid of the HS256 key derived from secret: a digest, so
// every gateway sharing JWT_SECRET names it the same and the secret cannot
// be recovered from it.
func LegacyKeyID(secret string) string {
	sum := sha256.Sum256([]byte("labelbase-legacy-kid:" + secret))
	return "legacy-" + base64.RawURLEncoding.EncodeToString(sum[:9])
}

func (k *Key) method() jwt.SigningMethod {
	switch k.Alg {
	case ES256:
		return jwt.SigningMethodES256
	case RS256:
		return jwt.SigningMethodRS256
	default:
		return jwt.SigningMethodHS256
	}
}

// verifyKey is what golang-jwt verifies this key's signatures with.
func (k *Key) verifyKey() any {
	if k.public != nil {
		return k.public
	}
	return k.secret
}

// KeySet is the gateway's signing keys: the legacy HS256 key from
// JWT_SECRET, always present for verification, the keys JWT_KEYS names
// (fixed at start) and the asymmetric keys kept in the database. A signing
// key JWT_KEYS marks signs, as in GoTrue; else the stored key that became
// the signer last; with none, the legacy key signs, so a JWT_SECRET-only
// deployment behaves as before.
//
// Every gateway on one database loads the same keys (see Store), so they
// agree on the current key and on what a revoked key means.
type KeySet struct {
	legacy     *Key
	configured []*Key

	mu      sync.RWMutex
	keys    map[string]*Key
	current *Key
	// loader re-reads the stored keys when a token names an unknown kid;
	// lastLoad throttles that so a flood of forged kids costs one query a
	// second at most.
	loader   func() ([]*Key, error)
	lastLoad time.Time
}

// NewKeySet returns a key set holding the legacy key of secret and the
// configured keys (JWT_KEYS, see ParseJWTKeys).
func NewKeySet(secret string, configured ...*Key) *KeySet {
	legacy := &Key{ID: LegacyKeyID(secret), Alg: HS256, secret: []byte(secret)}
	s := &KeySet{legacy: legacy, configured: configured}
	s.Replace(nil)
	return s
}

// Replace swaps the stored keys for keys. The legacy and configured keys
// stay; a stored key whose kid JWT_KEYS names too is shadowed by it.
func (s *KeySet) Replace(keys []*Key) {
	m := map[string]*Key{s.legacy.ID: s.legacy}
	for _, k := range keys {
		if k.public != nil {
			m[k.ID] = k
		}
	}
	var current *Key
	for _, k := range s.configured {
		m[k.ID] = k
		if !k.VerifiesOnly() && k.canSign() {
			current = k
		}
	}
	if current == nil {
		for _, k := range m {
			if k.configured || k.VerifiesOnly() || !k.canSign() {
				continue
			}
			if current == nil || k.SignsFrom.After(current.SignsFrom) ||
				(k.SignsFrom.Equal(current.SignsFrom) && k.ID > current.ID) {
				current = k
			}
		}
	}
	if current == nil {
		current = m[s.legacy.ID]
	}
	s.mu.Lock()
	s.keys, s.current = m, current
	s.mu.Unlock()
}

// SetLoader makes the set re-read its keys with load when a token names a
// kid it does not know (a key another gateway just added).
func (s *KeySet) SetLoader(load func() ([]*Key, error)) {
	s.mu.Lock()
	s.loader = load
	s.mu.Unlock()
}

// Current is the key that signs new tokens.
func (s *KeySet) Current() *Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.current
}

// Legacy is the HS256 key derived from JWT_SECRET.
func (s *KeySet) Legacy() *Key { return s.legacy }

// Keys lists every key, the current one first, then newest first.
func (s *KeySet) Keys() []*Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Key, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, k)
	}
	cur := s.current
	sort.Slice(out, func(i, j int) bool {
		if (out[i] == cur) != (out[j] == cur) {
			return out[i] == cur
		}
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Sign returns the compact JWT for claims, signed by the current key with
// its kid in the header.
func (s *KeySet) Sign(claims jwt.Claims) (string, error) {
	k := s.Current()
	t := jwt.NewWithClaims(k.method(), claims)
	t.Header["kid"] = k.ID
	var key any = k.secret
	if k.signer != nil {
		key = k.signer
	}
	out, err := t.SignedString(key)
	if err != nil {
		return "", fmt.Errorf("token: sign with %s: %w", k.ID, err)
	}
	return out, nil
}

// has reports whether kid is still in the set (a cached token whose key
// was revoked must stop working).
func (s *KeySet) has(kid string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.keys[kid]
	return ok
}

func (s *KeySet) lookup(kid string) *Key {
	s.mu.RLock()
	k := s.keys[kid]
	load := s.loader
	fresh := time.Since(s.lastLoad) < time.Second
	s.mu.RUnlock()
	if k != nil || load == nil || fresh {
		return k
	}
	s.mu.Lock()
	s.lastLoad = time.Now()
	s.mu.Unlock()
	if keys, err := load(); err == nil {
		s.Replace(keys)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.keys[kid]
}

// errUnknownKey is a kid the set does not hold, e.g. a revoked key.
var errUnknownKey = errors.New("unknown signing key")

// keyFunc picks the verification key for t by kid, and only if the
// token's alg is the key's own. A token without kid is a legacy HS256
// token (the API keys and tokens issued before kids). Tying alg to the
// key is what defeats alg confusion: an HS256 token cannot name an EC
// key's kid and be checked with its public key as the HMAC secret.
func (s *KeySet) keyFunc(t *jwt.Token) (any, error) {
	alg, _ := t.Header["alg"].(string)
	kid, hasKid := t.Header["kid"].(string)
	if _, present := t.Header["kid"]; present && !hasKid {
		return nil, errors.New("kid is not a string")
	}
	var k *Key
	if !hasKid {
		k = s.legacy
	} else if k = s.lookup(kid); k == nil {
		return nil, errUnknownKey
	}
	if alg != k.Alg {
		return nil, fmt.Errorf("alg %q does not match key %s (%s)", alg, k.ID, k.Alg)
	}
	return k.verifyKey(), nil
}

// CheckShadowed refuses a stored key whose kid a configured key (JWT_KEYS)
// names too, unless both are the same key: the configured one would
// silently take its place, and tokens the stored one signed would fail.
func CheckShadowed(stored, configured []*Key) error {
	byID := map[string]*Key{}
	for _, k := range configured {
		byID[k.ID] = k
	}
	for _, k := range stored {
		c := byID[k.ID]
		if c == nil {
			continue
		}
		same := false
		if eq, ok := c.public.(interface{ Equal(crypto.PublicKey) bool }); ok {
			same = eq.Equal(k.public)
		}
		if !same {
			return fmt.Errorf("kid %q names both a stored key and a different key in JWT_KEYS; revoke one or give it another kid", k.ID)
		}
	}
	return nil
}
