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

// APIKeys are the four keys a client may present: the legacy JWTs and the
// opaque keys that stand for them.
type APIKeys struct {
	Anon, ServiceRole   string // legacy JWTs
	Publishable, Secret string // sb_publishable_…, sb_secret_…
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
