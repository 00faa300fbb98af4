package token

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"strings"
)

// Prefixes of Supabase's opaque API keys: publishable keys act as anon,
// secret keys as service_role.
const (
	PublishablePrefix = "sb_publishable_"
	SecretPrefix      = "sb_secret_"
)

// OpaqueKey returns the sb_publishable_ or sb_secret_ key that secret
// implies when the operator set none: an HMAC of JWT_SECRET, so every
// gateway sharing the secret derives the same key, and the key reveals
// nothing of the secret.
func OpaqueKey(secret, prefix string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("labelbase-api-key:" + prefix))
	return prefix + base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:24])
}

// APIKeys are the keys a client may present: the legacy JWTs and the
// opaque keys that stand for them, and, with a Verifier, any other JWT API
// key a key of the set signed.
type APIKeys struct {
	Anon, ServiceRole   string // legacy JWTs
	Publishable, Secret string // sb_publishable_…, sb_secret_…
	// Verifier, when set, lets ResolveJWT admit API keys that are JWTs
	// signed by any key of its set, not only the two strings above.
	Verifier *Verifier
}

// Resolve maps an opaque key to the legacy JWT it stands for, and reports
// whether it is the secret key. Any other value (a legacy key, a user JWT,
// an unknown sb_ key) comes back unchanged with ok false; the apikey gate
// then judges it as before. Comparisons take constant time.
func (k APIKeys) Resolve(presented string) (legacy string, secret, ok bool) {
	switch {
	case strings.HasPrefix(presented, SecretPrefix) && equal(presented, k.Secret):
		return k.ServiceRole, true, true
	case strings.HasPrefix(presented, PublishablePrefix) && equal(presented, k.Publishable):
		return k.Anon, false, true
	}
	return presented, false, false
}

func equal(a, b string) bool {
	return b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// ResolveJWT maps an API key that is a JWT, signed by a key of the set
// (JWT_SECRET, JWT_KEYS or a stored key, imported ones included), valid
// now and with role anon or service_role, to the configured legacy key of
// that role. Supabase's legacy keys are such JWTs, and a project that
// moves in keeps the keys its clients ship: signed with its old JWT secret
// or an imported key, they are not byte for byte the keys this gateway
// derives. A user's access token (role authenticated), an expired key or
// one signed by a foreign key comes back with ok false. The configured
// keys themselves also come back with ok false: they need no mapping.
func (k APIKeys) ResolveJWT(presented string) (legacy string, ok bool) {
	if k.Verifier == nil || strings.Count(presented, ".") != 2 || equal(presented, k.Anon) || equal(presented, k.ServiceRole) {
		return presented, false
	}
	v, err := k.Verifier.Verify(presented)
	if err != nil {
		return presented, false
	}
	switch v.Role {
	case "anon":
		return k.Anon, k.Anon != ""
	case "service_role":
		return k.ServiceRole, k.ServiceRole != ""
	}
	return presented, false
}
