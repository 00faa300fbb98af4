package config

import "time"

// Security is the group of limits added after the security review of
// 2026-11-27 (issue #26; SECURITY.md lists them with their defaults).
type Security struct {
	// RateLimitOTP caps the mailing endpoints (/otp, /magiclink, /recover,
	// /resend, /reauthenticate) per client IP, like GoTrue's RATE_LIMIT_OTP.
	RateLimitOTP RateLimit
	// RateLimitOTPAddress caps the same endpoints per email address,
	// whoever asks.
	RateLimitOTPAddress RateLimit
	// OTPMaxAttempts is how many wrong codes typed for an address delete
	// the one-time code mailed there (the last of them deletes it).
	OTPMaxAttempts int
	// MFAMaxFailures wrong TOTP codes in a row lock the factor for
	// MFALockout.
	MFAMaxFailures int
	MFALockout     time.Duration
}

// allAtOnce declares a rate whose burst is its whole count (a client may
// spend the period's budget at once), refilled over per.
func allAtOnce(name string, def int, per time.Duration, at func(*Config) *RateLimit, doc string) setting {
	s := integer(name, def, func(c *Config) *int { return &at(c).Count }, doc)
	read := s.load
	s.load = func(p *parser, c *Config) { read(p, c); at(c).Per, at(c).Burst = per, at(c).Count }
	return s
}

// securityGroup: the mailing endpoints' limits and the code attempt caps.
var securityGroup = group{
	title: "Abuse limits",
	doc:   "Limits on the mailing endpoints and on guessing codes (see [SECURITY.md](../SECURITY.md)).",
	settings: []setting{
		allAtOnce("RATE_LIMIT_OTP", 30, 5*time.Minute, func(c *Config) *RateLimit { return &c.Security.RateLimitOTP },
			"Requests per 5 minutes per client IP to `/otp`, `/magiclink`, `/recover`, `/resend` and `/reauthenticate` "+
				"(GoTrue's name and default)."),
		allAtOnce("RATE_LIMIT_OTP_ADDRESS_PER_HOUR", 10, time.Hour, func(c *Config) *RateLimit { return &c.Security.RateLimitOTPAddress },
			"Requests per hour per email address to the same endpoints, from any IP."),
		integer("OTP_MAX_ATTEMPTS", 5, func(c *Config) *int { return &c.Security.OTPMaxAttempts },
			"Wrong codes typed for an address that delete the one-time code mailed there (the default: the fifth wrong "+
				"code deletes it, so four leave it working)."),
		integer("MFA_MAX_FAILURES", 5, func(c *Config) *int { return &c.Security.MFAMaxFailures },
			"Wrong TOTP codes in a row that lock the factor."),
		duration("MFA_LOCKOUT", 5*time.Minute, func(c *Config) *time.Duration { return &c.Security.MFALockout },
			"How long a locked factor refuses verification (429 with `Retry-After`); at least `1s`."),
	},
	validate: func(c *Config, p *parser) {
		s := c.Security
		if s.RateLimitOTP.Count < 1 {
			p.fail("RATE_LIMIT_OTP must be at least 1")
		}
		if s.RateLimitOTPAddress.Count < 1 {
			p.fail("RATE_LIMIT_OTP_ADDRESS_PER_HOUR must be at least 1")
		}
		if s.OTPMaxAttempts < 1 {
			p.fail("OTP_MAX_ATTEMPTS must be at least 1")
		}
		if s.MFAMaxFailures < 1 {
			p.fail("MFA_MAX_FAILURES must be at least 1")
		}
		if s.MFALockout < time.Second {
			p.fail("MFA_LOCKOUT must be at least 1s")
		}
	},
}
