package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/token"
)

const secret = "0123456789abcdef0123456789abcdef"

func env(m map[string]string) config.Getenv {
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	t.Parallel()
	c, err := config.Load(env(map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret}))
	if err != nil {
		t.Fatal(err)
	}
	if c.ListenAddr != ":8080" || c.JWTExpiry != time.Hour || c.PasswordMinLength != 6 ||
		c.RefreshTokenReuseInterval != 10*time.Second || c.RateLimitToken.Count != 1800 || c.CrawlRequestInterval != time.Second {
		t.Errorf("unexpected defaults: %+v", c)
	}
	if c.AnonKey != token.APIKey(secret, "anon") || c.ServiceRoleKey != token.APIKey(secret, "service_role") {
		t.Error("API keys must be derived from JWT_SECRET when unset")
	}
	if c.AnonKey == c.ServiceRoleKey {
		t.Error("anon and service-role keys must differ")
	}
	if c.RateLimitStore != "database" || c.AdminListenAddr != "" || c.AdminPprof || c.DBRetryWindow != 5*time.Second {
		t.Errorf("operability defaults: store %q, admin %q, pprof %v, retry window %v",
			c.RateLimitStore, c.AdminListenAddr, c.AdminPprof, c.DBRetryWindow)
	}
	_, err = config.Load(env(map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret,
		"LISTEN_ADDR": ":8080", "ADMIN_LISTEN_ADDR": ":8080"}))
	if err == nil || !strings.Contains(err.Error(), "ADMIN_LISTEN_ADDR") {
		t.Errorf("admin listener on the public address: %v", err)
	}
}

func TestExplicitKeysAndFiles(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(f, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(env(map[string]string{
		"DATABASE_URL": "postgresql://u@h/db", "JWT_SECRET_FILE": f, "ANON_KEY": "a", "SERVICE_ROLE_KEY": "s",
		"CORS_ALLOWED_ORIGINS": "https://a.example, https://b.example", "JWT_EXP": "600",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.JWTSecret != secret || c.AnonKey != "a" || c.ServiceRoleKey != "s" || c.JWTExpiry != 10*time.Minute {
		t.Errorf("got %+v", c)
	}
	if len(c.CORSAllowedOrigins) != 2 || c.CORSAllowedOrigins[1] != "https://b.example" {
		t.Errorf("origins = %q", c.CORSAllowedOrigins)
	}
}

// Every bad value is reported, each with the variable's name, and secrets
// are never echoed.
func TestErrorsNameEveryBadValue(t *testing.T) {
	t.Parallel()
	_, err := config.Load(env(map[string]string{
		"DATABASE_URL":           "mysql://x",
		"JWT_SECRET":             "short-secret-value",
		"JWT_EXP":                "60",
		"SITE_URL":               "not a url",
		"PASSWORD_MIN_LENGTH":    "three",
		"BANDCAMP_UPSTREAM":      "ftp://x",
		"CRAWL_AT":               "25:00",
		"CRAWL_REQUEST_INTERVAL": "soon",
		"LOG_LEVEL":              "loud",
		"DISABLE_SIGNUP":         "maybe",
		"CRAWL_MAX_REFUSALS":     "0",
		"CRAWL_CATCH_UP_DELAY":   "0s",
		"RATE_LIMIT_STORE":       "redis",
		"ADMIN_PPROF":            "true",
		"DB_RETRY_WINDOW":        "1h",
	}))
	if err == nil {
		t.Fatal("want errors")
	}
	msg := err.Error()
	for _, name := range []string{"DATABASE_URL", "JWT_SECRET", "JWT_EXP", "SITE_URL", "PASSWORD_MIN_LENGTH",
		"BANDCAMP_UPSTREAM", "CRAWL_AT", "CRAWL_REQUEST_INTERVAL", "LOG_LEVEL", "DISABLE_SIGNUP",
		"CRAWL_MAX_REFUSALS", "CRAWL_CATCH_UP_DELAY", "RATE_LIMIT_STORE", "ADMIN_PPROF", "DB_RETRY_WINDOW"} {
		if !strings.Contains(msg, name) {
			t.Errorf("error does not mention %s:\n%s", name, msg)
		}
	}
	if strings.Contains(msg, "short-secret-value") {
		t.Errorf("the secret leaked into the error:\n%s", msg)
	}
}

func TestMissingRequired(t *testing.T) {
	t.Parallel()
	_, err := config.Load(env(nil))
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL is required") || !strings.Contains(err.Error(), "JWT_SECRET is required") {
		t.Fatalf("err = %v", err)
	}
	if _, err := config.DatabaseURL(env(nil)); err == nil {
		t.Fatal("DatabaseURL without DATABASE_URL must fail")
	}
	if u, err := config.DatabaseURL(env(map[string]string{"DATABASE_URL": "postgres://x/y"})); err != nil || u != "postgres://x/y" {
		t.Fatalf("DatabaseURL = %q, %v", u, err)
	}
}

func TestCrawlMaxNetworkFailures(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://u@localhost/db", "JWT_SECRET": strings.Repeat("s", 32)}
	cfg, err := config.Load(env(base))
	if err != nil || cfg.CrawlMaxNetworkFailures != 3 {
		t.Fatalf("default = %v, %v; want 3", cfg, err)
	}
	base["CRAWL_MAX_NETWORK_FAILURES"] = "0"
	if _, err := config.Load(env(base)); err == nil || !strings.Contains(err.Error(), "CRAWL_MAX_NETWORK_FAILURES") {
		t.Errorf("0 accepted or not named: %v", err)
	}
}

func TestMailAndInviteSettings(t *testing.T) {
	t.Parallel()
	base := map[string]string{"DATABASE_URL": "postgres://u@h/db", "JWT_SECRET": secret}
	c, err := config.Load(env(base))
	if err != nil {
		t.Fatal(err)
	}
	if !c.MailerAutoconfirm || !c.InviteRequired || !c.MailerSecureEmailChange || c.UpdatePasswordRequireReauth ||
		len(c.URIAllowList) != 0 || c.RateLimitVerify.Count != 360 {
		t.Errorf("defaults: %+v", c)
	}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	c, err = config.Load(env(with("INVITE_REQUIRED", "false", "MAILER_AUTOCONFIRM", "false", "MAIL_DEV_INBOX", "true",
		"URI_ALLOW_LIST", "https://*.example.com/**, myapp://callback")))
	if err != nil {
		t.Fatal(err)
	}
	if c.InviteRequired || c.MailerAutoconfirm || len(c.URIAllowList) != 2 || c.URIAllowList[1] != "myapp://callback" {
		t.Errorf("parsed: %+v", c)
	}
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"MAILER_AUTOCONFIRM", "false"}, "MAILER_AUTOCONFIRM=false needs mail"},
		{[]string{"URI_ALLOW_LIST", "https://[a-"}, "URI_ALLOW_LIST"},
		{[]string{"INVITE_REQUIRED", "maybe"}, "INVITE_REQUIRED must be true or false"},
		{[]string{"RATE_LIMIT_VERIFY", "0"}, "RATE_LIMIT_VERIFY must be at least 1"},
	} {
		if _, err := config.Load(env(with(tc.kv...))); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.kv, err, tc.want)
		}
	}
}
