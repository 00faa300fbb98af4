// Package config reads Labelbase's settings from the environment once, at
// start, into a typed Config that is passed down explicitly.
//
// Names follow Supabase's where Supabase has one (DATABASE_URL, JWT_SECRET,
// ANON_KEY, SERVICE_ROLE_KEY, SITE_URL), so a deployment's environment reads
// the same on both. Every secret may also be given as NAME_FILE, a path whose
// contents are the value, for container secret mounts.
//
// Each setting is declared once, in its group (settings_*.go): name,
// default, meaning, parser. The declarations drive Load, the generated
// docs/configuration.md and PostgREST's in-database overrides
// (Config.WithDatabaseSettings). How to add a setting or a group: the doc
// comment of groups in table.go. Tests build their configuration with
// configtest.New.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/labelbase/labelbase/pkg/token"
)

// Config is every setting of the labelbase binary.
type Config struct {
	// Realtime is /realtime/v1's group (settings_realtime.go).
	Realtime Realtime
	// Storage is /storage/v1's group (settings_storage.go).
	Storage Storage
	// Security is the security review's limits (settings_security.go).
	Security Security
	// Replicas: read replicas, the pooler's direct URL, the connection
	// budget (settings_replicas.go).
	Replicas Replicas
	// RESTSpeed: the REST hot path's switches (settings_rest.go).
	RESTSpeed RESTSpeed
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
	// without MailDevInbox, mail is off (the flows run, nothing is sent).
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
// at once, one per line, so an operator fixes them in one go. What it
// reads is the declarations of groups (table.go).
func Load(getenv Getenv) (*Config, error) {
	p := parser{getenv: getenv}
	c := &Config{}
	for _, g := range groups {
		for _, s := range g.settings {
			s.load(&p, c)
		}
	}
	for _, g := range groups {
		if g.validate != nil {
			g.validate(c, &p)
		}
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	for _, g := range groups {
		if g.derive != nil {
			g.derive(c)
		}
	}
	return c, nil
}

// splitJoined unpacks an errors.Join into its errors.
func splitJoined(err error) []error {
	var j interface{ Unwrap() []error }
	if errors.As(err, &j) {
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
