package token

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
)

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

// JWKS is the public half of every asymmetric key (the ones that only
// verify included, so clients such as supabase-js's getClaims() accept the
// tokens they signed), as
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
		if k.public == nil {
			continue
		}
		j := JWK{Kid: k.ID, Alg: k.Alg, Use: "sig", KeyOps: []string{"verify"}}
		switch pub := k.public.(type) {
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
