package token

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
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
	// CreatedAt orders the keys: the newest asymmetric key signs.
	CreatedAt time.Time

	signer crypto.Signer // ES256, RS256
	secret []byte        // HS256
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
	return &Key{ID: base64.RawURLEncoding.EncodeToString(id), Alg: alg, CreatedAt: now.UTC(), signer: s}, nil
}

// NewKey wraps an existing private key, as the store reads them back.
func NewKey(id, alg string, createdAt time.Time, signer crypto.Signer) (*Key, error) {
	switch k := signer.(type) {
	case *ecdsa.PrivateKey:
		if alg != ES256 || k.Curve != elliptic.P256() {
			return nil, fmt.Errorf("token: key %s: an ECDSA key must be P-256 with alg ES256", id)
		}
	case *rsa.PrivateKey:
		if alg != RS256 || k.N.BitLen() < 2048 {
			return nil, fmt.Errorf("token: key %s: an RSA key must be at least 2048 bits with alg RS256", id)
		}
	default:
		return nil, fmt.Errorf("token: key %s: unsupported key type %T", id, signer)
	}
	return &Key{ID: id, Alg: alg, CreatedAt: createdAt, signer: signer}, nil
}

// Signer is the private key, for the store to encrypt; nil for HS256.
func (k *Key) Signer() crypto.Signer { return k.signer }

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
	if k.signer != nil {
		return k.signer.Public()
	}
	return k.secret
}

// KeySet is the gateway's signing keys: the legacy HS256 key from
// JWT_SECRET, always present for verification, plus the asymmetric keys
// kept in the database. The newest asymmetric key signs; with none, the
// legacy key signs, so a JWT_SECRET-only deployment behaves as before.
//
// Every gateway on one database loads the same keys (see Store), so they
// agree on the current key and on what a revoked key means.
type KeySet struct {
	legacy *Key

	mu      sync.RWMutex
	keys    map[string]*Key
	current *Key
	// loader re-reads the stored keys when a token names an unknown kid;
	// lastLoad throttles that so a flood of forged kids costs one query a
	// second at most.
	loader   func() ([]*Key, error)
	lastLoad time.Time
}

// NewKeySet returns a key set holding only the legacy key of secret.
func NewKeySet(secret string) *KeySet {
	legacy := &Key{ID: LegacyKeyID(secret), Alg: HS256, secret: []byte(secret)}
	s := &KeySet{legacy: legacy}
	s.Replace(nil)
	return s
}

// Replace swaps the asymmetric keys for keys (the legacy key stays).
func (s *KeySet) Replace(keys []*Key) {
	m := map[string]*Key{s.legacy.ID: s.legacy}
	current := s.legacy
	for _, k := range keys {
		if k.signer == nil {
			continue
		}
		m[k.ID] = k
		if current == s.legacy || k.CreatedAt.After(current.CreatedAt) ||
			(k.CreatedAt.Equal(current.CreatedAt) && k.ID > current.ID) {
			current = k
		}
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
		return out[i].CreatedAt.After(out[j].CreatedAt)
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

// JWK is one public key in JSON Web Key form (RFC 7517, 7518).
type JWK struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Alg    string   `json:"alg"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv,omitempty"`
	X      string   `json:"x,omitempty"`
	Y      string   `json:"y,omitempty"`
	N      string   `json:"n,omitempty"`
	E      string   `json:"e,omitempty"`
}

// JWKS is the public half of every asymmetric key, as
// /auth/v1/.well-known/jwks.json serves it. The HS256 key is never listed:
// its "public" form would be the secret itself.
//
// The encoding is written here rather than taken from a JOSE library: two
// key types and six fields do not justify a second JWT dependency beside
// golang-jwt.
func (s *KeySet) JWKS() []byte {
	set := struct {
		Keys []JWK `json:"keys"`
	}{Keys: []JWK{}}
	for _, k := range s.Keys() {
		if k.signer == nil {
			continue
		}
		j := JWK{Kid: k.ID, Alg: k.Alg, Use: "sig", KeyOps: []string{"verify"}}
		switch pub := k.signer.Public().(type) {
		case *ecdsa.PublicKey:
			j.Kty, j.Crv = "EC", "P-256"
			// The uncompressed point is 0x04 || X || Y, 32 bytes each on P-256.
			if pt, err := pub.Bytes(); err == nil && len(pt) == 65 {
				j.X, j.Y = b64(pt[1:33]), b64(pt[33:])
			}
		case *rsa.PublicKey:
			j.Kty = "RSA"
			j.N = b64(pub.N.Bytes())
			j.E = b64(big.NewInt(int64(pub.E)).Bytes())
		}
		set.Keys = append(set.Keys, j)
	}
	b, _ := json.Marshal(set)
	return b
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
