// Package config reads Labelbase's settings from the environment once, at
// start, into a typed Config that is passed down explicitly.
//
// Names follow Supabase's where Supabase has one (DATABASE_URL, JWT_SECRET,
// ANON_KEY, SERVICE_ROLE_KEY, SITE_URL), so a deployment's environment reads
// the same on both. Every secret may also be given as NAME_FILE, a path whose
// contents are the value, for container secret mounts.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gobwas/glob"

	"github.com/labelbase/labelbase/pkg/token"
)

// Config is every setting of the labelbase binary.
type Config struct {
	// DatabaseURL is an owner or superuser connection: migrations, the auth
	// store and the ingest worker use it.
	DatabaseURL string
	// RESTDatabaseURL optionally names a least-privilege login (normally the
	// authenticator role) for /rest/v1. When empty, REST connections use
	// DatabaseURL and drop to authenticator for the whole session.
	RESTDatabaseURL string

	JWTSecret      string
	JWTExpiry      time.Duration
	AnonKey        string
	ServiceRoleKey string
	SiteURL        string
	ListenAddr     string
	// AdminListenAddr serves /metrics (and, with AdminPprof, the profiler)
	// on an address of its own, never the public one; empty turns it off.
	AdminListenAddr string
	AdminPprof      bool

	// Keys.
	// PublishableKey and SecretKey are Supabase's opaque API keys
	// (sb_publishable_…, sb_secret_…), standing for anon and service_role.
	// Derived from JWT_SECRET when unset.
	PublishableKey string
	SecretKey      string
	// SigningKeysEncryptionKey seals the asymmetric signing keys stored in
	// the database; JWT_SECRET when unset.
	SigningKeysEncryptionKey string
	// SigningKeysReload is how often a gateway re-reads the signing keys,
	// so a rotation or revocation on another host reaches it.
	SigningKeysReload time.Duration
	// JWTKeys are the keys of JWT_KEYS, self-hosted Supabase's setting for
	// GoTrue's GOTRUE_JWT_KEYS: a JSON array of JWKs, the one whose
	// key_ops include "sign" signing, the others verifying (see
	// token.ParseJWTKeys). Held in memory only, never stored.
	JWTKeys []*token.Key

	// Auth.
	PasswordMinLength         int
	RefreshTokenReuseInterval time.Duration
	DisableSignup             bool
	BcryptCost                int
	RateLimitToken            RateLimit
	RateLimitSignup           RateLimit
	RateLimitUserUpdate       RateLimit
	// RateLimitMFA caps MFA challenges and, separately, verifications per
	// client IP (GoTrue's MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY, per minute).
	RateLimitMFA RateLimit
	// RateLimitStore is where the auth rate limits keep their buckets:
	// "database" (shared by every gateway on the database) or "memory"
	// (per process: N gateways allow N times the rate).
	RateLimitStore string
	// TrustedProxyHeader names the header (e.g. X-Forwarded-For) that holds
	// the client IP when the gateway runs behind a proxy. Empty means the
	// connection's address is the client.
	TrustedProxyHeader string
	CORSAllowedOrigins []string

	// Mail (account recovery), under GoTrue's names. Without SMTPHost and
	// without MailDevInbox, recovery mail is off.
	SMTPHost       string
	SMTPPort       int
	SMTPUser       string
	SMTPPass       string
	SMTPAdminEmail string
	SMTPSenderName string
	// SMTPMaxFrequency is how soon the same address may be mailed again.
	SMTPMaxFrequency time.Duration
	// MailerOTPExp is how long a recovery link stays valid.
	MailerOTPExp time.Duration
	// RateLimitEmailSent caps recovery mails per hour, over all addresses.
	RateLimitEmailSent RateLimit
	// MailDevInbox captures mail in memory and shows it at /_dev/inbox
	// instead of sending it (labelbase dev, acceptance tests).
	MailDevInbox bool
	// MailerAutoconfirm (GoTrue's MAILER_AUTOCONFIRM) confirms a new
	// address at sign-up and applies an email change at once; false mails
	// a confirmation link and code first.
	MailerAutoconfirm bool
	// MailerSecureEmailChange (GoTrue's MAILER_SECURE_EMAIL_CHANGE_ENABLED)
	// asks both the old and the new address to confirm an email change.
	MailerSecureEmailChange bool
	// URIAllowList is GoTrue's URI_ALLOW_LIST: glob patterns of the
	// redirect targets allowed besides SITE_URL's own host.
	URIAllowList []string
	// InviteRequired keeps sign-up members-only (an invite code in
	// data.invite_code, checked by the database); false makes Labelbase a
	// plain Supabase-compatible backend where anyone may sign up.
	InviteRequired bool
	// UpdatePasswordRequireReauth (GoTrue's
	// SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION) asks for the
	// nonce of GET /reauthenticate before a password change in a session
	// older than a day.
	UpdatePasswordRequireReauth bool
	// RateLimitVerify caps /verify and OTP checks per IP (GoTrue's
	// RATE_LIMIT_VERIFY, per hour).
	RateLimitVerify RateLimit

	// REST.
	DBSchemas        []string
	DBAnonRole       string
	StatementTimeout time.Duration
	MaxBodyBytes     int64
	DBPoolSize       int
	// DBPreparedStatements prepares each statement once per connection
	// (PostgREST's db-prepared-statements). Turn it off behind a pooler in
	// transaction mode that cannot keep prepared statements.
	DBPreparedStatements bool
	// DBRetryWindow is how long a REST request whose connection turned out
	// dead (a database restart) keeps trying fresh connections before it
	// answers 503; 0 answers at once.
	DBRetryWindow time.Duration
	// DBTxEnd is how a REST transaction ends (PostgREST's db-tx-end):
	// commit, commit-allow-override, rollback or rollback-allow-override;
	// with -allow-override a request may choose by Prefer: tx=.
	DBTxEnd string
	// DBPlanEnabled lets a request ask for its statement's plan
	// (Accept: application/vnd.pgrst.plan), as PostgREST's db-plan-enabled.
	DBPlanEnabled bool
	// DBDefaultGrants grants the owner's future objects in the exposed
	// schemas to anon and authenticated, as hosted Supabase does.
	DBDefaultGrants bool
	// DBAggregatesEnabled allows aggregate functions in select (PostgREST's
	// db-aggregates-enabled): handy, and a way to make the database sum a
	// whole table, hence off by default.
	DBAggregatesEnabled bool
	// DBConfig reads PostgREST's in-database settings (pgrst.* on the
	// authenticator role) at start and on NOTIFY pgrst, 'reload config';
	// they override the environment, as PostgREST's db-config.
	DBConfig bool
	// DBMaxRows caps the rows a read returns (PostgREST's db-max-rows);
	// 0 is no cap.
	DBMaxRows int
	// DBPreRequest is a function called before every REST statement
	// (PostgREST's db-pre-request), as schema.name; empty for none.
	DBPreRequest string
	// DBExtraSearchPath follows the request's schema on search_path
	// (PostgREST's db-extra-search-path).
	DBExtraSearchPath []string
	// OpenAPIMode is follow-privileges, ignore-privileges or disabled
	// (PostgREST's openapi-mode).
	OpenAPIMode string
	// RESTJWTAud, when set, is the audience a REST token's aud claim must
	// include (PostgREST's jwt-aud); tokens without aud pass.
	RESTJWTAud string
	// RESTJWTRoleClaimKey is the JSPath of the role in a REST token's
	// claims (PostgREST's jwt-role-claim-key).
	RESTJWTRoleClaimKey string
	// CompressMinBytes is the smallest API response body gzipped for
	// clients that accept it; below it the gzip framing costs more than it saves.
	CompressMinBytes int
	// RESTSpeed: the REST hot path's settings (restspeed.go).
	RESTSpeed RESTSpeed

	// Ingest.
	BandcampUpstream     string
	CrawlAt              string
	CrawlRequestInterval time.Duration
	CrawlUserAgent       string
	CrawlDisabled        bool
	// CrawlCatchUpDelay is how soon after start a gateway runs a pass when
	// none succeeded in the last day.
	CrawlCatchUpDelay time.Duration
	// CrawlMaxRefusals is how many refusals in a row (challenge pages,
	// 429s that outlast the back-off) stop a pass early.
	CrawlMaxRefusals int
	// CrawlMaxNetworkFailures is how many requests in a row that cannot
	// reach Bandcamp (DNS, connection, TLS failures) stop a pass early.
	CrawlMaxNetworkFailures int

	// Frontend.
	AnalyticsScriptURL string

	LogLevel  string
	LogFormat string
}

// RateLimit allows Burst requests at once, refilled at Count per Per.
type RateLimit struct {
	Count int
	Per   time.Duration
	Burst int
}

// Getenv is the lookup Load reads from; os.Getenv in production, a map in tests.
type Getenv func(string) string

// Load parses and validates the configuration. Every problem is reported
// at once, one per line, so an operator fixes them in one go.
func Load(getenv Getenv) (*Config, error) {
	p := parser{getenv: getenv}
	c := &Config{
		DatabaseURL:                 p.secret("DATABASE_URL", ""),
		RESTDatabaseURL:             p.secret("REST_DATABASE_URL", ""),
		JWTSecret:                   p.secret("JWT_SECRET", ""),
		JWTExpiry:                   p.seconds("JWT_EXP", 3600*time.Second),
		AnonKey:                     p.secret("ANON_KEY", ""),
		ServiceRoleKey:              p.secret("SERVICE_ROLE_KEY", ""),
		PublishableKey:              p.secret("PUBLISHABLE_KEY", ""),
		SecretKey:                   p.secret("SECRET_KEY", ""),
		SigningKeysEncryptionKey:    p.secret("SIGNING_KEYS_ENCRYPTION_KEY", ""),
		SigningKeysReload:           p.duration("SIGNING_KEYS_RELOAD_INTERVAL", time.Minute),
		SiteURL:                     p.str("SITE_URL", "http://localhost:8080"),
		ListenAddr:                  p.str("LISTEN_ADDR", ":8080"),
		AdminListenAddr:             p.str("ADMIN_LISTEN_ADDR", ""),
		AdminPprof:                  p.boolean("ADMIN_PPROF", false),
		RateLimitStore:              p.str("RATE_LIMIT_STORE", "database"),
		PasswordMinLength:           p.integer("PASSWORD_MIN_LENGTH", 6),
		RefreshTokenReuseInterval:   p.seconds("REFRESH_TOKEN_REUSE_INTERVAL", 10*time.Second),
		DisableSignup:               p.boolean("DISABLE_SIGNUP", false),
		BcryptCost:                  p.integer("BCRYPT_COST", 10),
		RateLimitToken:              RateLimit{Count: p.integer("RATE_LIMIT_TOKEN_PER_HOUR", 1800), Per: time.Hour, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		RateLimitSignup:             RateLimit{Count: p.integer("RATE_LIMIT_SIGNUP_PER_5MIN", 30), Per: 5 * time.Minute, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		RateLimitUserUpdate:         RateLimit{Count: p.integer("RATE_LIMIT_USER_UPDATE_PER_5MIN", 30), Per: 5 * time.Minute, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		RateLimitMFA:                RateLimit{Count: p.integer("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", 15), Per: time.Minute, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		TrustedProxyHeader:          p.str("TRUSTED_PROXY_HEADER", ""),
		SMTPHost:                    p.str("SMTP_HOST", ""),
		SMTPPort:                    p.integer("SMTP_PORT", 587),
		SMTPUser:                    p.str("SMTP_USER", ""),
		SMTPPass:                    p.secret("SMTP_PASS", ""),
		SMTPAdminEmail:              p.str("SMTP_ADMIN_EMAIL", ""),
		SMTPSenderName:              p.str("SMTP_SENDER_NAME", "Labelbase"),
		SMTPMaxFrequency:            p.seconds("SMTP_MAX_FREQUENCY", 60*time.Second),
		MailerOTPExp:                p.seconds("MAILER_OTP_EXP", 3600*time.Second),
		RateLimitEmailSent:          RateLimit{Count: p.integer("RATE_LIMIT_EMAIL_SENT", 30), Per: time.Hour, Burst: p.integer("RATE_LIMIT_EMAIL_SENT", 30)},
		MailDevInbox:                p.boolean("MAIL_DEV_INBOX", false),
		MailerAutoconfirm:           p.boolean("MAILER_AUTOCONFIRM", true),
		MailerSecureEmailChange:     p.boolean("MAILER_SECURE_EMAIL_CHANGE_ENABLED", true),
		URIAllowList:                p.list("URI_ALLOW_LIST", nil),
		InviteRequired:              p.boolean("INVITE_REQUIRED", true),
		UpdatePasswordRequireReauth: p.boolean("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", false),
		RateLimitVerify:             RateLimit{Count: p.integer("RATE_LIMIT_VERIFY", 360), Per: time.Hour, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		CORSAllowedOrigins:          p.list("CORS_ALLOWED_ORIGINS", []string{"*"}),
		DBSchemas:                   p.list("DB_SCHEMAS", []string{"public"}),
		DBAnonRole:                  p.str("DB_ANON_ROLE", "anon"),
		StatementTimeout:            p.duration("DB_STATEMENT_TIMEOUT", 10*time.Second),
		MaxBodyBytes:                int64(p.integer("MAX_BODY_BYTES", 1<<20)),
		DBPreparedStatements:        p.boolean("DB_PREPARED_STATEMENTS", true),
		DBRetryWindow:               p.duration("DB_RETRY_WINDOW", 5*time.Second),
		DBTxEnd:                     p.str("DB_TX_END", "commit"),
		DBPlanEnabled:               p.boolean("DB_PLAN_ENABLED", false),
		DBDefaultGrants:             p.boolean("DB_DEFAULT_GRANTS", false),
		DBAggregatesEnabled:         p.boolean("DB_AGGREGATES_ENABLED", false),
		DBPoolSize:                  p.integer("DB_POOL_SIZE", 10),
		DBConfig:                    p.boolean("DB_CONFIG", true),
		DBMaxRows:                   p.integer("DB_MAX_ROWS", 0),
		DBPreRequest:                p.str("DB_PRE_REQUEST", ""),
		DBExtraSearchPath:           p.list("DB_EXTRA_SEARCH_PATH", []string{"public", "extensions"}),
		OpenAPIMode:                 p.str("OPENAPI_MODE", "follow-privileges"),
		RESTJWTAud:                  p.str("REST_JWT_AUD", ""),
		RESTJWTRoleClaimKey:         p.str("REST_JWT_ROLE_CLAIM_KEY", ".role"),
		CompressMinBytes:            p.integer("COMPRESS_MIN_BYTES", 1024),
		BandcampUpstream:            p.str("BANDCAMP_UPSTREAM", ""),
		CrawlAt:                     p.str("CRAWL_AT", "03:00"),
		CrawlRequestInterval:        p.duration("CRAWL_REQUEST_INTERVAL", time.Second),
		CrawlUserAgent:              p.str("CRAWL_USER_AGENT", "Labelbase/1.0 (+self-hosted label follower; one request per second)"),
		CrawlDisabled:               p.boolean("CRAWL_DISABLED", false),
		CrawlCatchUpDelay:           p.duration("CRAWL_CATCH_UP_DELAY", time.Minute),
		CrawlMaxRefusals:            p.integer("CRAWL_MAX_REFUSALS", 3),
		CrawlMaxNetworkFailures:     p.integer("CRAWL_MAX_NETWORK_FAILURES", 3),
		AnalyticsScriptURL:          p.str("ANALYTICS_SCRIPT_URL", ""),
		LogLevel:                    p.str("LOG_LEVEL", "info"),
		LogFormat:                   p.str("LOG_FORMAT", "text"),
	}
	c.RESTSpeed = p.restSpeed()
	c.validate(&p)
	if raw := p.secret("JWT_KEYS", ""); raw != "" && len(c.JWTSecret) >= 32 {
		keys, err := token.ParseJWTKeys(raw, c.JWTSecret)
		if err != nil {
			// One line per bad key, each naming it by position and kid;
			// the messages never repeat key material.
			for _, e := range splitJoined(err) {
				p.fail("JWT_KEYS: %v", e)
			}
		}
		c.JWTKeys = keys
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
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
	return c, nil
}

func (c *Config) validate(p *parser) {
	if c.DatabaseURL == "" {
		p.fail("DATABASE_URL is required (a PostgreSQL URL of an owner or superuser)")
	} else if err := checkPostgresURL(c.DatabaseURL); err != nil {
		p.fail("DATABASE_URL: %v", err)
	}
	if c.RESTDatabaseURL != "" {
		if err := checkPostgresURL(c.RESTDatabaseURL); err != nil {
			p.fail("REST_DATABASE_URL: %v", err)
		}
	}
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
	if c.DBRetryWindow < 0 || c.DBRetryWindow > 5*time.Minute {
		p.fail("DB_RETRY_WINDOW must be between 0s and 5m")
	}
	if c.SigningKeysReload < time.Second {
		p.fail("SIGNING_KEYS_RELOAD_INTERVAL must be at least 1s")
	}
	if c.JWTExpiry < 5*time.Minute || c.JWTExpiry > 7*24*time.Hour {
		// supabase-js refreshes 120 s before expiry; a shorter lifetime
		// would make it refresh continuously.
		p.fail("JWT_EXP must be between 300 and 604800 seconds")
	}
	if u, err := url.Parse(c.SiteURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fail("SITE_URL must be an absolute http(s) URL, got %q", c.SiteURL)
	}
	if c.RateLimitStore != "database" && c.RateLimitStore != "memory" {
		p.fail("RATE_LIMIT_STORE must be database or memory")
	}
	if c.AdminPprof && c.AdminListenAddr == "" {
		p.fail("ADMIN_PPROF needs ADMIN_LISTEN_ADDR: the profiler is never served on the public port")
	}
	if c.AdminListenAddr != "" && c.AdminListenAddr == c.ListenAddr && !strings.HasSuffix(c.ListenAddr, ":0") {
		p.fail("ADMIN_LISTEN_ADDR must differ from LISTEN_ADDR")
	}
	if c.ListenAddr == "" {
		p.fail("LISTEN_ADDR must not be empty")
	}
	if c.PasswordMinLength < 6 || c.PasswordMinLength > 72 {
		p.fail("PASSWORD_MIN_LENGTH must be between 6 and 72")
	}
	if c.BcryptCost < 4 || c.BcryptCost > 31 {
		p.fail("BCRYPT_COST must be between 4 and 31")
	}
	if c.RefreshTokenReuseInterval < 0 {
		p.fail("REFRESH_TOKEN_REUSE_INTERVAL must not be negative")
	}
	for _, rl := range []struct {
		name string
		v    RateLimit
	}{{"RATE_LIMIT_TOKEN_PER_HOUR", c.RateLimitToken}, {"RATE_LIMIT_SIGNUP_PER_5MIN", c.RateLimitSignup}, {"RATE_LIMIT_USER_UPDATE_PER_5MIN", c.RateLimitUserUpdate}, {"MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", c.RateLimitMFA}} {
		if rl.v.Count < 1 {
			p.fail("%s must be at least 1", rl.name)
		}
		if rl.v.Burst < 1 {
			p.fail("RATE_LIMIT_BURST must be at least 1")
		}
	}
	if c.SMTPHost != "" && c.SMTPAdminEmail == "" {
		p.fail("SMTP_ADMIN_EMAIL (the From address) is required when SMTP_HOST is set")
	}
	if c.SMTPPort < 1 || c.SMTPPort > 65535 {
		p.fail("SMTP_PORT must be a TCP port")
	}
	if c.MailerOTPExp < time.Minute || c.MailerOTPExp > 24*time.Hour {
		p.fail("MAILER_OTP_EXP must be between 60 and 86400 seconds")
	}
	if c.SMTPMaxFrequency < 0 {
		p.fail("SMTP_MAX_FREQUENCY must not be negative")
	}
	if !c.MailerAutoconfirm && c.SMTPHost == "" && !c.MailDevInbox {
		p.fail("MAILER_AUTOCONFIRM=false needs mail (SMTP_HOST or MAIL_DEV_INBOX): confirmation links could not be sent")
	}
	for _, pat := range c.URIAllowList {
		if _, err := glob.Compile(pat, '.', '/'); err != nil {
			p.fail("URI_ALLOW_LIST: %q is not a valid pattern: %v", pat, err)
		}
	}
	if c.RateLimitVerify.Count < 1 {
		p.fail("RATE_LIMIT_VERIFY must be at least 1")
	}
	if c.RateLimitEmailSent.Count < 1 {
		p.fail("RATE_LIMIT_EMAIL_SENT must be at least 1")
	}
	if len(c.DBSchemas) == 0 {
		p.fail("DB_SCHEMAS must name at least one schema")
	}
	if c.StatementTimeout <= 0 {
		p.fail("DB_STATEMENT_TIMEOUT must be positive")
	}
	if c.MaxBodyBytes < 1024 {
		p.fail("MAX_BODY_BYTES must be at least 1024")
	}
	switch c.DBTxEnd {
	case "commit", "commit-allow-override", "rollback", "rollback-allow-override":
	default:
		p.fail("DB_TX_END must be commit, commit-allow-override, rollback or rollback-allow-override, got %q", c.DBTxEnd)
	}
	if c.DBMaxRows < 0 {
		p.fail("DB_MAX_ROWS must not be negative")
	}
	switch c.OpenAPIMode {
	case "follow-privileges", "ignore-privileges", "disabled":
	default:
		p.fail("OPENAPI_MODE must be follow-privileges, ignore-privileges or disabled, got %q", c.OpenAPIMode)
	}
	if c.DBPoolSize < 2 {
		p.fail("DB_POOL_SIZE must be at least 2")
	}
	if c.CompressMinBytes < 0 {
		p.fail("COMPRESS_MIN_BYTES must not be negative")
	}
	if c.BandcampUpstream != "" {
		if u, err := url.Parse(c.BandcampUpstream); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.fail("BANDCAMP_UPSTREAM must be an http(s) origin, got %q", c.BandcampUpstream)
		}
	}
	if _, err := time.Parse("15:04", c.CrawlAt); err != nil {
		p.fail("CRAWL_AT must be a UTC time of day as HH:MM, got %q", c.CrawlAt)
	}
	if c.CrawlRequestInterval < 0 {
		p.fail("CRAWL_REQUEST_INTERVAL must not be negative")
	}
	if c.CrawlCatchUpDelay < time.Second {
		p.fail("CRAWL_CATCH_UP_DELAY must be at least 1s")
	}
	if c.CrawlMaxRefusals < 1 {
		p.fail("CRAWL_MAX_REFUSALS must be at least 1")
	}
	if c.CrawlMaxNetworkFailures < 1 {
		p.fail("CRAWL_MAX_NETWORK_FAILURES must be at least 1")
	}
	if c.AnalyticsScriptURL != "" {
		if u, err := url.Parse(c.AnalyticsScriptURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			p.fail("ANALYTICS_SCRIPT_URL must be an absolute http(s) URL")
		}
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		p.fail("LOG_LEVEL must be debug, info, warn or error")
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		p.fail("LOG_FORMAT must be text or json")
	}
}

// splitJoined unpacks an errors.Join into its errors.
func splitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func checkPostgresURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return errors.New("not a URL")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return fmt.Errorf("scheme must be postgres:// or postgresql://, got %q", u.Scheme)
	}
	return nil
}

type parser struct {
	getenv Getenv
	errs   []error
}

func (p *parser) fail(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(format, args...))
}

func (p *parser) str(name, def string) string {
	if v := strings.TrimSpace(p.getenv(name)); v != "" {
		return v
	}
	return def
}

// secret reads NAME, or the file named by NAME_FILE. Values are never echoed
// back in errors.
func (p *parser) secret(name, def string) string {
	if f := p.getenv(name + "_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			p.fail("%s_FILE: cannot read %s: %v", name, f, err)
			return def
		}
		return strings.TrimSpace(string(b))
	}
	return p.str(name, def)
}

func (p *parser) integer(name string, def int) int {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be a whole number, got %q", name, v)
		return def
	}
	return n
}

func (p *parser) seconds(name string, def time.Duration) time.Duration {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be a whole number of seconds, got %q", name, v)
		return def
	}
	return time.Duration(n) * time.Second
}

func (p *parser) duration(name string, def time.Duration) time.Duration {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be a duration such as 1s or 500ms, got %q", name, v)
		return def
	}
	return d
}

func (p *parser) boolean(name string, def bool) bool {
	v := p.getenv(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		p.fail("%s must be true or false, got %q", name, v)
		return def
	}
	return b
}

func (p *parser) list(name string, def []string) []string {
	v := p.getenv(name)
	if strings.TrimSpace(v) == "" {
		return def
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// DatabaseURL reads only DATABASE_URL (or DATABASE_URL_FILE), for commands
// such as migrate and invite that need nothing else.
func DatabaseURL(getenv Getenv) (string, error) {
	p := parser{getenv: getenv}
	u := p.secret("DATABASE_URL", "")
	if len(p.errs) > 0 {
		return "", errors.Join(p.errs...)
	}
	if u == "" {
		return "", errors.New("DATABASE_URL is required (a PostgreSQL URL of an owner or superuser)")
	}
	if err := checkPostgresURL(u); err != nil {
		return "", fmt.Errorf("DATABASE_URL: %w", err)
	}
	return u, nil
}
