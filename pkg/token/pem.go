package token

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"time"
)

// parsePEM reads the one key of a PEM file.
func parsePEM(data []byte, now time.Time) (*Key, error) {
	var found []*pem.Block
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			break
		}
		if b.Type == "EC PARAMETERS" { // openssl ecparam -genkey writes it first
			continue
		}
		found = append(found, b)
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("a PEM file must hold exactly one key; this one holds %d", len(found))
	}
	b := found[0]
	if b.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(b.Headers["Proc-Type"], "ENCRYPTED") {
		return nil, errors.New("the PEM key is encrypted: decrypt it first (openssl pkey -in FILE -out PLAIN)")
	}
	var (
		key any
		err error
	)
	switch b.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(b.Bytes)
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(b.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a key Labelbase imports (PRIVATE KEY, RSA PRIVATE KEY, EC PRIVATE KEY or PUBLIC KEY)", b.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("PEM %s: %w", b.Type, err)
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey, *rsa.PrivateKey:
		s := k.(crypto.Signer)
		return privateKey(thumbprint(s.Public()), "", s, now)
	case *ecdsa.PublicKey, *rsa.PublicKey:
		return publicKey(thumbprint(k), "", k, now)
	default:
		return nil, fmt.Errorf("unsupported key type %T: Labelbase imports EC P-256 and RSA keys", key)
	}
}
