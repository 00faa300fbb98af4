package config

import (
	"time"

	"github.com/gobwas/glob"
)

// authGroup: sign-up, passwords, sessions and redirects of /auth/v1.
var authGroup = group{
	title: "Auth",
	doc:   "Sign-up, passwords, sessions and redirects of `/auth/v1`, under GoTrue's names where it has one.",
	settings: []setting{
		integer("PASSWORD_MIN_LENGTH", 6, func(c *Config) *int { return &c.PasswordMinLength },
			"Minimum password length (6–72)."),
		seconds("REFRESH_TOKEN_REUSE_INTERVAL", 10*time.Second, func(c *Config) *time.Duration { return &c.RefreshTokenReuseInterval },
			"Seconds a just-rotated refresh token may be presented again (racing tabs)."),
		boolean("DISABLE_SIGNUP", false, func(c *Config) *bool { return &c.DisableSignup },
			"Refuse new sign-ups."),
		integer("BCRYPT_COST", 10, func(c *Config) *int { return &c.BcryptCost },
			"Password hash cost, 4–31 (GoTrue-compatible `$2a$` hashes)."),
		boolean("INVITE_REQUIRED", true, func(c *Config) *bool { return &c.InviteRequired },
			"Sign-up needs an invite code (`data.invite_code`), checked by the database; `false` runs Labelbase as a "+
				"plain Supabase-compatible backend where anyone may sign up. See [auth.md](auth.md#the-invite-rule)."),
		boolean("SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION", false,
			func(c *Config) *bool { return &c.UpdatePasswordRequireReauth },
			"A password change in a session older than 24 hours needs the nonce of `GET /auth/v1/reauthenticate`."),
		list("URI_ALLOW_LIST", nil, func(c *Config) *[]string { return &c.URIAllowList },
			"Comma-separated GoTrue redirect patterns allowed besides `SITE_URL`'s host, e.g. "+
				"`https://*.preview.example.com/**,myapp://callback` (`*` stops at `.` and `/`, `**` does not); "+
				"a `redirect_to` that is not allowed falls back to `SITE_URL`."),
	},
	validate: func(c *Config, p *parser) {
		if c.PasswordMinLength < 6 || c.PasswordMinLength > 72 {
			p.fail("PASSWORD_MIN_LENGTH must be between 6 and 72")
		}
		if c.BcryptCost < 4 || c.BcryptCost > 31 {
			p.fail("BCRYPT_COST must be between 4 and 31")
		}
		if c.RefreshTokenReuseInterval < 0 {
			p.fail("REFRESH_TOKEN_REUSE_INTERVAL must not be negative")
		}
		for _, pat := range c.URIAllowList {
			if _, err := glob.Compile(pat, '.', '/'); err != nil {
				p.fail("URI_ALLOW_LIST: %q is not a valid pattern: %v", pat, err)
			}
		}
	},
}

// rateLimit declares a per-IP rate whose refill period is fixed by its
// name; its burst is RATE_LIMIT_BURST's.
func rateLimit(name string, def int, per time.Duration, at func(*Config) *RateLimit, doc string) setting {
	s := integer(name, def, func(c *Config) *int { return &at(c).Count }, doc)
	read := s.load
	s.load = func(p *parser, c *Config) { read(p, c); at(c).Per = per }
	return s
}

// limitsWithBurst are the rate limits RATE_LIMIT_BURST applies to.
func limitsWithBurst(c *Config) []*RateLimit {
	return []*RateLimit{&c.RateLimitToken, &c.RateLimitSignup, &c.RateLimitUserUpdate, &c.RateLimitMFA, &c.RateLimitVerify}
}

// rateLimitGroup: the auth rate limits and where they count.
var rateLimitGroup = group{
	title: "Rate limits",
	doc:   "Per client IP unless said otherwise. Over a limit, `/auth/v1` answers GoTrue's 429.",
	settings: []setting{
		text("RATE_LIMIT_STORE", "database", func(c *Config) *string { return &c.RateLimitStore },
			"Where the auth rate limits count: `database` (table `auth.rate_limits`, one budget shared by every "+
				"gateway on the database, one small statement per check) or `memory` (per process: N gateways behind "+
				"a balancer allow N times each rate)."),
		rateLimit("RATE_LIMIT_TOKEN_PER_HOUR", 1800, time.Hour, func(c *Config) *RateLimit { return &c.RateLimitToken },
			"`/token` requests per hour."),
		rateLimit("RATE_LIMIT_SIGNUP_PER_5MIN", 30, 5*time.Minute, func(c *Config) *RateLimit { return &c.RateLimitSignup },
			"`/signup` requests per 5 minutes."),
		rateLimit("RATE_LIMIT_USER_UPDATE_PER_5MIN", 30, 5*time.Minute, func(c *Config) *RateLimit { return &c.RateLimitUserUpdate },
			"`PUT /user` requests per 5 minutes."),
		rateLimit("RATE_LIMIT_VERIFY", 360, time.Hour, func(c *Config) *RateLimit { return &c.RateLimitVerify },
			"`/verify` requests (links and codes) per hour, GoTrue's default; bounds guessing a six-digit code."),
		{
			name: "RATE_LIMIT_BURST", def: "30",
			doc: "Requests a client may make at once before the per-IP rates of this section and " +
				"`MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY` apply.",
			load: func(p *parser, c *Config) {
				burst := p.integer("RATE_LIMIT_BURST", 30)
				for _, rl := range limitsWithBurst(c) {
					rl.Burst = burst
				}
			},
		},
		{
			name: "RATE_LIMIT_EMAIL_SENT", def: "30",
			doc: "Auth mails per hour over all addresses (GoTrue's default; all gateways together with " +
				"`RATE_LIMIT_STORE=database`); over it: 429 `over_email_send_rate_limit`.",
			load: func(p *parser, c *Config) {
				n := p.integer("RATE_LIMIT_EMAIL_SENT", 30)
				c.RateLimitEmailSent = RateLimit{Count: n, Per: time.Hour, Burst: n}
			},
		},
	},
	validate: func(c *Config, p *parser) {
		if c.RateLimitStore != "database" && c.RateLimitStore != "memory" {
			p.fail("RATE_LIMIT_STORE must be database or memory")
		}
		for _, rl := range []struct {
			name string
			v    RateLimit
		}{
			{"RATE_LIMIT_TOKEN_PER_HOUR", c.RateLimitToken}, {"RATE_LIMIT_SIGNUP_PER_5MIN", c.RateLimitSignup},
			{"RATE_LIMIT_USER_UPDATE_PER_5MIN", c.RateLimitUserUpdate}, {"RATE_LIMIT_VERIFY", c.RateLimitVerify},
			{"RATE_LIMIT_EMAIL_SENT", c.RateLimitEmailSent},
		} {
			if rl.v.Count < 1 {
				p.fail("%s must be at least 1", rl.name)
			}
		}
		if c.RateLimitToken.Burst < 1 {
			p.fail("RATE_LIMIT_BURST must be at least 1")
		}
	},
}

// mfaGroup: TOTP factors.
var mfaGroup = group{
	title: "MFA",
	doc:   "Two-factor authentication (TOTP). See [auth.md](auth.md#two-factor-authentication-totp).",
	settings: []setting{
		rateLimit("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", 15, time.Minute, func(c *Config) *RateLimit { return &c.RateLimitMFA },
			"MFA challenges, and separately MFA verifications, per client IP per minute (GoTrue's name and default; "+
				"burst `RATE_LIMIT_BURST`)."),
	},
	validate: func(c *Config, p *parser) {
		if c.RateLimitMFA.Count < 1 {
			p.fail("MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY must be at least 1")
		}
	},
}
