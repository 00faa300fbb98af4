package token

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// Keys an operator brings come as JSON Web Keys (RFC 7517) — one JWK, a
// JWK set {"keys": [...]}, or the bare JSON array GoTrue's GOTRUE_JWT_KEYS
// (self-hosted Supabase's JWT_KEYS) holds — or as a PEM key. Decoding a
// JWK's members, padding and curve points is go-jose's work: a private key
// with a wrong length or an off-curve point is the kind of detail a
// hand-written decoder gets wrong. The checks on top (which algorithms,
// key_ops, the kid, a key that cannot sign what it claims to) are ours.

// ParsedKey is one key read from a key file or from JWT_KEYS.
type ParsedKey struct {
	Key *Key
	// Sign is set when the JWK's key_ops include "sign": GoTrue signs with
	// that key.
	Sign bool
}

// KeyError is a problem with one key of a file or setting; it names the
// key by position and kid, never by its contents.
type KeyError struct {
	Index int // 1-based
	Kid   string
	Err   error
}

func (e *KeyError) Error() string {
	if e.Kid != "" {
		return fmt.Sprintf("key #%d (kid %q): %v", e.Index, e.Kid, e.Err)
	}
	return fmt.Sprintf("key #%d: %v", e.Index, e.Err)
}

func (e *KeyError) Unwrap() error { return e.Err }

// ErrNotKeys is input that is neither JSON Web Keys nor a PEM key.
var ErrNotKeys = errors.New("not a JWK, a JWK set, a JSON array of JWKs or a PEM key")

// maxKidLen bounds a kid: it travels in every token header.
const maxKidLen = 200

// ParseKeyFile reads the keys of a file for `labelbase keys import`: JWKs
// (see above) or one PEM key (PKCS#8, PKCS#1 RSA, SEC 1 EC, or a PKIX
// public key). kid, when set, names a single key (a PEM key has no kid of
// its own); a key without one is named by its RFC 7638 thumbprint.
// Symmetric (oct) keys are refused: the legacy secret is JWT_SECRET, and
// other shared secrets belong in JWT_KEYS, never in the database. The one
// exception is a kid-less oct key equal to legacySecret, which self-hosted
// Supabase's JWT_KEYS carries beside its EC key: it is JWT_SECRET, which
// verifies anyway, so it is left out and the rest of the set imports.
func ParseKeyFile(data []byte, kid, legacySecret string, now time.Time) ([]ParsedKey, error) {
	data = bytes.TrimSpace(data)
	var keys []ParsedKey
	switch {
	case bytes.HasPrefix(data, []byte("-----BEGIN")):
		k, err := parsePEM(data, now)
		if err != nil {
			return nil, err
		}
		keys = []ParsedKey{{Key: k}}
	case len(data) > 0 && (data[0] == '{' || data[0] == '['):
		raws, err := splitJWKs(data)
		if err != nil {
			return nil, err
		}
		if len(raws) == 0 {
			return nil, errors.New("no keys")
		}
		var errs []error
		for i, raw := range raws {
			pk, err := parseJWK(raw, legacySecret, now)
			if err == nil && pk.Key.secret != nil {
				if legacySecret != "" && jwkKid(raw) == "" {
					continue // JWT_SECRET itself
				}
				err = errors.New("a symmetric (oct) key is not imported: set JWT_SECRET to the legacy secret, or list the key in JWT_KEYS")
			}
			if err != nil {
				errs = append(errs, &KeyError{Index: i + 1, Kid: jwkKid(raw), Err: err})
				continue
			}
			keys = append(keys, pk)
		}
		if len(errs) > 0 {
			return nil, errors.Join(errs...)
		}
		if len(keys) == 0 {
			return nil, errors.New("no keys to import: the file holds only JWT_SECRET, which verifies anyway")
		}
	default:
		return nil, ErrNotKeys
	}
	if kid != "" {
		if len(keys) != 1 {
			return nil, fmt.Errorf("a kid can only be given for a file with one key; this one has %d", len(keys))
		}
		if err := checkKid(kid); err != nil {
			return nil, err
		}
		keys[0].Key.ID = kid
	}
	if err := uniqueKids(keys); err != nil {
		return nil, err
	}
	return keys, nil
}

// SigningKey picks which of keys is to sign after an import: the one whose
// key_ops say "sign", or the only private key.
func SigningKey(keys []ParsedKey) (*Key, error) {
	var marked, private []*Key
	for _, k := range keys {
		if k.Sign {
			marked = append(marked, k.Key)
		}
		if k.Key.signer != nil {
			private = append(private, k.Key)
		}
	}
	switch {
	case len(marked) == 1:
		return marked[0], nil
	case len(marked) > 1:
		return nil, fmt.Errorf("%d keys have key_ops \"sign\"; only one key signs", len(marked))
	case len(private) == 1:
		return private[0], nil
	case len(private) == 0:
		return nil, errors.New("no private key to sign with: a public key only verifies")
	default:
		return nil, fmt.Errorf("%d private keys and none has key_ops \"sign\": mark the one to sign with, or import it alone", len(private))
	}
}

// ParseJWTKeys reads JWT_KEYS, self-hosted Supabase's setting for GoTrue's
// GOTRUE_JWT_KEYS: a JSON array of JWKs (a {"keys": [...]} set is taken
// too), the one whose key_ops include "sign" signing, as in GoTrue, the
// others verifying. Unlike GoTrue, a set with no signing key is accepted:
// its keys then only verify while the stored or legacy key signs, which is
// what a project that moves in wants until it chooses to switch.
//
// An HS256 (oct) key is kept in memory only. One without a kid must be
// legacySecret itself (JWT_SECRET, which the set generated by self-hosted
// Supabase repeats), since tokens without a kid are checked with it.
// Empty or "[]" (self-hosted Supabase's default) means no keys. Every bad key is reported, each by position
// and kid; no error repeats key material.
func ParseJWTKeys(value, legacySecret string) ([]*Key, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	raws, err := splitJWKs([]byte(value))
	if err != nil {
		return nil, err
	}
	var (
		out     []*Key
		errs    []error
		signers []string
	)
	for i, raw := range raws {
		pk, err := parseJWK(raw, legacySecret, time.Time{})
		if err != nil {
			errs = append(errs, &KeyError{Index: i + 1, Kid: jwkKid(raw), Err: err})
			continue
		}
		pk.Key.configured = true
		if pk.Sign {
			pk.Key.SignsFrom = time.Unix(1, 0)
			signers = append(signers, pk.Key.ID)
		}
		out = append(out, pk.Key)
	}
	if len(signers) > 1 {
		errs = append(errs, fmt.Errorf("%d keys have key_ops \"sign\" (%s); only one key signs", len(signers), strings.Join(signers, ", ")))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	parsed := make([]ParsedKey, len(out))
	for i, k := range out {
		parsed[i] = ParsedKey{Key: k}
	}
	if err := uniqueKids(parsed); err != nil {
		return nil, err
	}
	return out, nil
}

// splitJWKs returns the JWKs of a JWK, a JWK set or an array of JWKs.
func splitJWKs(data []byte) ([]json.RawMessage, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// The offset, never the text around it: the text is key material.
			return nil, fmt.Errorf("not valid JSON (at byte %d)", se.Offset)
		}
		return nil, errors.New("not valid JSON")
	}
	var raws []json.RawMessage
	switch v := probe.(type) {
	case []any:
		_ = json.Unmarshal(data, &raws)
	case map[string]any:
		if _, ok := v["keys"]; ok {
			var set struct {
				Keys []json.RawMessage `json:"keys"`
			}
			if err := json.Unmarshal(data, &set); err != nil {
				return nil, errors.New(`"keys" is not an array of JWKs`)
			}
			raws = set.Keys
		} else {
			raws = []json.RawMessage{data}
		}
	default:
		return nil, ErrNotKeys
	}
	return raws, nil
}

// jwkMeta is the members of a JWK that say what it is for.
type jwkMeta struct {
	Kty    string   `json:"kty"`
	Kid    string   `json:"kid"`
	Alg    string   `json:"alg"`
	Use    string   `json:"use"`
	KeyOps []string `json:"key_ops"`
	Crv    string   `json:"crv"`
}

func jwkKid(raw json.RawMessage) string {
	var m jwkMeta
	if json.Unmarshal(raw, &m) != nil || checkKid(m.Kid) != nil {
		return ""
	}
	return m.Kid
}

// parseJWK reads one JWK. legacySecret, when set, admits an oct key
// without a kid that equals it (and names it as the legacy key).
func parseJWK(raw json.RawMessage, legacySecret string, now time.Time) (ParsedKey, error) {
	var m jwkMeta
	if err := json.Unmarshal(raw, &m); err != nil {
		return ParsedKey{}, errors.New("not a JSON object with string members kty, kid, alg, use, crv and an array key_ops")
	}
	switch m.Kty {
	case "EC":
		if m.Crv != "P-256" {
			return ParsedKey{}, fmt.Errorf("unsupported crv %q: EC keys must be P-256 (ES256)", m.Crv)
		}
	case "RSA", "oct":
	case "":
		return ParsedKey{}, errors.New(`no "kty"`)
	default:
		return ParsedKey{}, fmt.Errorf("unsupported kty %q: Labelbase signs and verifies with EC P-256 (ES256), RSA (RS256) and oct (HS256) keys", m.Kty)
	}
	if m.Use != "" && m.Use != "sig" {
		return ParsedKey{}, fmt.Errorf("use %q: not a signing key", m.Use)
	}
	sign := slices.Contains(m.KeyOps, "sign")
	if len(m.KeyOps) > 0 && !sign && !slices.Contains(m.KeyOps, "verify") {
		return ParsedKey{}, fmt.Errorf("key_ops %q allow neither sign nor verify", m.KeyOps)
	}
	if m.Kid != "" {
		if err := checkKid(m.Kid); err != nil {
			return ParsedKey{}, err
		}
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		// go-jose names the member that is wrong, never its value.
		return ParsedKey{}, fmt.Errorf("invalid %s JWK: %s", m.Kty, strings.TrimPrefix(err.Error(), "go-jose/go-jose: "))
	}
	kid := m.Kid
	var (
		k   *Key
		err error
	)
	switch key := jwk.Key.(type) {
	case []byte:
		if m.Alg != "" && m.Alg != HS256 {
			return ParsedKey{}, fmt.Errorf("unsupported alg %q for an oct key: HS256 only", m.Alg)
		}
		if len(key) < 32 {
			return ParsedKey{}, errors.New("an HS256 secret must be at least 32 bytes, as JWT_SECRET")
		}
		if kid == "" {
			if legacySecret == "" || string(key) != legacySecret {
				return ParsedKey{}, errors.New("an oct key without a kid must be JWT_SECRET (tokens without a kid are checked with it): give the key a kid, or set JWT_SECRET to it")
			}
			kid = LegacyKeyID(legacySecret)
		}
		k = &Key{ID: kid, Alg: HS256, CreatedAt: now, secret: key}
	case *ecdsa.PrivateKey, *rsa.PrivateKey:
		if kid == "" {
			kid = thumbprint(jwk.Public())
		}
		k, err = privateKey(kid, m.Alg, key.(crypto.Signer), now)
	case *ecdsa.PublicKey, *rsa.PublicKey:
		if sign {
			return ParsedKey{}, errors.New(`a public key cannot sign (key_ops has "sign" but the JWK has no "d")`)
		}
		if kid == "" {
			kid = thumbprint(jwk)
		}
		k, err = publicKey(kid, m.Alg, key, now)
	default:
		return ParsedKey{}, fmt.Errorf("unsupported kty %q", m.Kty)
	}
	if err != nil {
		return ParsedKey{}, err
	}
	return ParsedKey{Key: k, Sign: sign}, nil
}

// algFor is the algorithm a public key signs with, checked against the
// alg the file states, if any.
func algFor(pub crypto.PublicKey, stated string) (string, error) {
	alg := RS256
	if _, ok := pub.(*ecdsa.PublicKey); ok {
		alg = ES256
	}
	if stated != "" && stated != alg {
		return "", fmt.Errorf("unsupported alg %q: this key signs with %s", stated, alg)
	}
	return alg, nil
}

// privateKey wraps signer after proving that it signs what its public
// half verifies: a JWK whose "d" does not belong to its "x"/"y" would
// issue tokens nobody could check.
func privateKey(kid, stated string, signer crypto.Signer, now time.Time) (*Key, error) {
	alg, err := algFor(signer.Public(), stated)
	if err != nil {
		return nil, err
	}
	k, err := NewKey(kid, alg, now, signer)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "token: key "+kid+": "))
	}
	digest := sha256.Sum256([]byte("labelbase key check"))
	ok := false
	switch pub := signer.Public().(type) {
	case *ecdsa.PublicKey:
		sig, err := signer.Sign(rand.Reader, digest[:], crypto.SHA256)
		ok = err == nil && ecdsa.VerifyASN1(pub, digest[:], sig)
	case *rsa.PublicKey:
		sig, err := signer.Sign(rand.Reader, digest[:], crypto.SHA256)
		ok = err == nil && rsa.VerifyPKCS1v15(pub, crypto.SHA256, digest[:], sig) == nil
	}
	if !ok {
		return nil, errors.New("the private key does not match its public half")
	}
	k.SignsFrom = time.Time{}
	return k, nil
}

func publicKey(kid, stated string, pub crypto.PublicKey, now time.Time) (*Key, error) {
	alg, err := algFor(pub, stated)
	if err != nil {
		return nil, err
	}
	k, err := NewPublicKey(kid, alg, now, pub)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "token: key "+kid+": "))
	}
	return k, nil
}

// thumbprint is the RFC 7638 SHA-256 thumbprint of a public key, the kid
// of a key that brings none.
func thumbprint(pub any) string {
	var jwk jose.JSONWebKey
	switch p := pub.(type) {
	case jose.JSONWebKey:
		jwk = p
	default:
		jwk = jose.JSONWebKey{Key: pub}
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(tp)
}

func checkKid(kid string) error {
	if kid == "" {
		return errors.New("empty kid")
	}
	if len(kid) > maxKidLen {
		return fmt.Errorf("kid longer than %d characters", maxKidLen)
	}
	for _, r := range kid {
		if r < 0x21 || r == 0x7f {
			return errors.New("kid has spaces or control characters")
		}
	}
	return nil
}

func uniqueKids(keys []ParsedKey) error {
	seen := map[string]bool{}
	for _, k := range keys {
		if k.Key.ID == "" {
			return errors.New("a key has no kid and no thumbprint")
		}
		if seen[k.Key.ID] {
			return fmt.Errorf("kid %q appears twice", k.Key.ID)
		}
		seen[k.Key.ID] = true
	}
	return nil
}
