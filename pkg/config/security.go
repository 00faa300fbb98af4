package config

import "time"

// Security is the group of limits added after the security review of
// 2026-11-27 (issue #26; SECURITY.md lists them with their defaults).
type Security struct {
	// RateLimitOTP caps the mailing endpoints (/otp, /magiclink, /recover,
	// /resend, /reauthenticate) per client IP, like GoTrue's RATE_LIMIT_OTP:
	// RATE_LIMIT_OTP requests per 5 minutes, all of them at once.
	RateLimitOTP RateLimit
	// RateLimitOTPAddress caps the same endpoints per email address,
	// whoever asks: RATE_LIMIT_OTP_ADDRESS_PER_HOUR an hour.
	RateLimitOTPAddress RateLimit
	// OTPMaxAttempts is how many wrong codes an emailed one-time code
	// survives; the next wrong one deletes it.
	OTPMaxAttempts int
	// MFAMaxFailures wrong TOTP codes in a row lock the factor for
	// MFALockout.
	MFAMaxFailures int
	MFALockout     time.Duration
}

// loadSecurity reads the Security group.
func loadSecurity(p *parser) Security {
	otp := p.integer("RATE_LIMIT_OTP", 30)
	addr := p.integer("RATE_LIMIT_OTP_ADDRESS_PER_HOUR", 10)
	s := Security{
		RateLimitOTP:        RateLimit{Count: otp, Per: 5 * time.Minute, Burst: otp},
		RateLimitOTPAddress: RateLimit{Count: addr, Per: time.Hour, Burst: addr},
		OTPMaxAttempts:      p.integer("OTP_MAX_ATTEMPTS", 5),
		MFAMaxFailures:      p.integer("MFA_MAX_FAILURES", 5),
		MFALockout:          p.duration("MFA_LOCKOUT", 5*time.Minute),
	}
	if otp < 1 {
		p.fail("RATE_LIMIT_OTP must be at least 1")
	}
	if addr < 1 {
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
	return s
}
