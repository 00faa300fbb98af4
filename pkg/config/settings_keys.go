package config

import (
	"strings"
	"time"

	"github.com/labelbase/labelbase/pkg/token"
)

// keysGroup: what signs and verifies tokens, and the API keys.
var keysGroup = group{
	title: "JWT and API keys",
	doc: "What signs and verifies access tokens, and the API keys clients send. `labelbase keys` prints the keys. " +
		"See [supabase.md](supabase.md) for bringing a Supabase project's keys along.",
	settings: []setting{
		secret("JWT_SECRET", func(c *Config) *string { return &c.JWTSecret },
			"Required, at least 32 characters. The HS256 secret for access tokens and the derived API keys.").
			defaultDoc("— (required)"),
		seconds("JWT_EXP", 3600*time.Second, func(c *Config) *time.Duration { return &c.JWTExpiry },
			"Access-token lifetime in seconds (300–604800; supabase-js refreshes 120 s before expiry)."),
		secret("ANON_KEY", func(c *Config) *string { return &c.AnonKey },
			"API key for role `anon` (a JWT).").defaultDoc("derived from `JWT_SECRET`"),
		secret("SERVICE_ROLE_KEY", func(c *Config) *string { return &c.ServiceRoleKey },
			"API key for role `service_role` (a JWT).").defaultDoc("derived from `JWT_SECRET`"),
		secret("PUBLISHABLE_KEY", func(c *Config) *string { return &c.PublishableKey },
			"Supabase's opaque publishable key (`sb_publishable_…`), standing for `anon`, accepted beside the JWT keys.").
			defaultDoc("derived from `JWT_SECRET`"),
		secret("SECRET_KEY", func(c *Config) *string { return &c.SecretKey },
			"Supabase's opaque secret key (`sb_secret_…` and 32+ characters), standing for `service_role`.").
			defaultDoc("derived from `JWT_SECRET`"),
		secret("SIGNING_KEYS_ENCRYPTION_KEY", func(c *Config) *string { return &c.SigningKeysEncryptionKey },
			"At least 32 characters; seals the ES256/RS256 private keys stored in `auth.signing_keys`.").
			defaultDoc("`JWT_SECRET`"),
		duration("SIGNING_KEYS_RELOAD_INTERVAL", time.Minute, func(c *Config) *time.Duration { return &c.SigningKeysReload },
			"How often a gateway re-reads the signing keys, so a rotation or revocation on another host reaches it "+
				"(it also re-reads at once on an unknown `kid`); at least `1s`."),
		{
			name: "JWT_KEYS", file: true, load: loadJWTKeys,
			doc: "Self-hosted Supabase's signing keys (GoTrue's `GOTRUE_JWT_KEYS`): a JSON array of JWKs, read at start " +
				"and kept in memory, never stored. The key whose `key_ops` include `\"sign\"` signs (over any stored key); " +
				"the others, and HS256 `oct` keys with a `kid`, verify. `[]` means none.",
		},
	},
	validate: func(c *Config, p *parser) {
		if len(c.JWTSecret) < 32 {
			p.fail("JWT_SECRET is required and must be at least 32 characters")
		}
		if c.PublishableKey != "" && !strings.HasPrefix(c.PublishableKey, token.PublishablePrefix) {
			p.fail("PUBLISHABLE_KEY must start with %s", token.PublishablePrefix)
		}
		if c.SecretKey != "" && (!strings.HasPrefix(c.SecretKey, token.SecretPrefix) || len(c.SecretKey) < len(token.SecretPrefix)+32) {
			p.fail("SECRET_KEY must start with %s and have at least 32 characters after it", token.SecretPrefix)
		}
		if c.SigningKeysEncryptionKey != "" && len(c.SigningKeysEncryptionKey) < 32 {
			p.fail("SIGNING_KEYS_ENCRYPTION_KEY must be at least 32 characters")
		}
		if c.SigningKeysReload < time.Second {
			p.fail("SIGNING_KEYS_RELOAD_INTERVAL must be at least 1s")
		}
		if c.JWTExpiry < 5*time.Minute || c.JWTExpiry > 7*24*time.Hour {
			// supabase-js refreshes 120 s before expiry; a shorter lifetime
			// would make it refresh continuously.
			p.fail("JWT_EXP must be between 300 and 604800 seconds")
		}
	},
	derive: func(c *Config) {
		if c.AnonKey == "" {
			c.AnonKey = token.APIKey(c.JWTSecret, "anon")
		}
		if c.ServiceRoleKey == "" {
			c.ServiceRoleKey = token.APIKey(c.JWTSecret, "service_role")
		}
		if c.PublishableKey == "" {
			c.PublishableKey = token.OpaqueKey(c.JWTSecret, token.PublishablePrefix)
		}
		if c.SecretKey == "" {
			c.SecretKey = token.OpaqueKey(c.JWTSecret, token.SecretPrefix)
		}
		if c.SigningKeysEncryptionKey == "" {
			c.SigningKeysEncryptionKey = c.JWTSecret
		}
	},
}

// loadJWTKeys parses JWT_KEYS against JWT_SECRET (declared before it), so
// an oct key can be recognised as the secret. With a missing or short
// secret only that error is reported.
func loadJWTKeys(p *parser, c *Config) {
	raw := p.secret("JWT_KEYS", "")
	if raw == "" || len(c.JWTSecret) < 32 {
		return
	}
	keys, err := token.ParseJWTKeys(raw, c.JWTSecret)
	if err != nil {
		// One line per bad key, each naming it by position and kid; the
		// messages never repeat key material.
		for _, e := range splitJoined(err) {
			p.fail("JWT_KEYS: %v", e)
		}
	}
	c.JWTKeys = keys
}
