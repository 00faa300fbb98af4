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

	// Auth.
	PasswordMinLength         int
	RefreshTokenReuseInterval time.Duration
	DisableSignup             bool
	BcryptCost                int
	RateLimitToken            RateLimit
	RateLimitSignup           RateLimit
	RateLimitUserUpdate       RateLimit
	// TrustedProxyHeader names the header (e.g. X-Forwarded-For) that holds
	// the client IP when the gateway runs behind a proxy. Empty means the
	// connection's address is the client.
	TrustedProxyHeader string
	CORSAllowedOrigins []string

	// REST.
	DBSchemas        []string
	DBAnonRole       string
	StatementTimeout time.Duration
	MaxBodyBytes     int64
	DBPoolSize       int
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
		DatabaseURL:               p.secret("DATABASE_URL", ""),
		RESTDatabaseURL:           p.secret("REST_DATABASE_URL", ""),
		JWTSecret:                 p.secret("JWT_SECRET", ""),
		JWTExpiry:                 p.seconds("JWT_EXP", 3600*time.Second),
		AnonKey:                   p.secret("ANON_KEY", ""),
		ServiceRoleKey:            p.secret("SERVICE_ROLE_KEY", ""),
		SiteURL:                   p.str("SITE_URL", "http://localhost:8080"),
		ListenAddr:                p.str("LISTEN_ADDR", ":8080"),
		PasswordMinLength:         p.integer("PASSWORD_MIN_LENGTH", 6),
		RefreshTokenReuseInterval: p.seconds("REFRESH_TOKEN_REUSE_INTERVAL", 10*time.Second),
		DisableSignup:             p.boolean("DISABLE_SIGNUP", false),
		BcryptCost:                p.integer("BCRYPT_COST", 10),
		RateLimitToken:            RateLimit{Count: p.integer("RATE_LIMIT_TOKEN_PER_HOUR", 1800), Per: time.Hour, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		RateLimitSignup:           RateLimit{Count: p.integer("RATE_LIMIT_SIGNUP_PER_5MIN", 30), Per: 5 * time.Minute, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		RateLimitUserUpdate:       RateLimit{Count: p.integer("RATE_LIMIT_USER_UPDATE_PER_5MIN", 30), Per: 5 * time.Minute, Burst: p.integer("RATE_LIMIT_BURST", 30)},
		TrustedProxyHeader:        p.str("TRUSTED_PROXY_HEADER", ""),
		CORSAllowedOrigins:        p.list("CORS_ALLOWED_ORIGINS", []string{"*"}),
		DBSchemas:                 p.list("DB_SCHEMAS", []string{"public"}),
		DBAnonRole:                p.str("DB_ANON_ROLE", "anon"),
		StatementTimeout:          p.duration("DB_STATEMENT_TIMEOUT", 10*time.Second),
		MaxBodyBytes:              int64(p.integer("MAX_BODY_BYTES", 1<<20)),
		DBPoolSize:                p.integer("DB_POOL_SIZE", 10),
		CompressMinBytes:          p.integer("COMPRESS_MIN_BYTES", 1024),
		BandcampUpstream:          p.str("BANDCAMP_UPSTREAM", ""),
		CrawlAt:                   p.str("CRAWL_AT", "03:00"),
		CrawlRequestInterval:      p.duration("CRAWL_REQUEST_INTERVAL", time.Second),
		CrawlUserAgent:            p.str("CRAWL_USER_AGENT", "Labelbase/1.0 (+self-hosted label follower; one request per second)"),
		CrawlDisabled:             p.boolean("CRAWL_DISABLED", false),
		CrawlCatchUpDelay:         p.duration("CRAWL_CATCH_UP_DELAY", time.Minute),
		CrawlMaxRefusals:          p.integer("CRAWL_MAX_REFUSALS", 3),
		AnalyticsScriptURL:        p.str("ANALYTICS_SCRIPT_URL", ""),
		LogLevel:                  p.str("LOG_LEVEL", "info"),
		LogFormat:                 p.str("LOG_FORMAT", "text"),
	}
	c.validate(&p)
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	if c.AnonKey == "" {
		c.AnonKey = token.APIKey(c.JWTSecret, "anon")
	}
	if c.ServiceRoleKey == "" {
		c.ServiceRoleKey = token.APIKey(c.JWTSecret, "service_role")
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
	if c.JWTExpiry < 5*time.Minute || c.JWTExpiry > 7*24*time.Hour {
		// supabase-js refreshes 120 s before expiry; a shorter lifetime
		// would make it refresh continuously.
		p.fail("JWT_EXP must be between 300 and 604800 seconds")
	}
	if u, err := url.Parse(c.SiteURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.fail("SITE_URL must be an absolute http(s) URL, got %q", c.SiteURL)
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
	}{{"RATE_LIMIT_TOKEN_PER_HOUR", c.RateLimitToken}, {"RATE_LIMIT_SIGNUP_PER_5MIN", c.RateLimitSignup}, {"RATE_LIMIT_USER_UPDATE_PER_5MIN", c.RateLimitUserUpdate}} {
		if rl.v.Count < 1 {
			p.fail("%s must be at least 1", rl.name)
		}
		if rl.v.Burst < 1 {
			p.fail("RATE_LIMIT_BURST must be at least 1")
		}
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
