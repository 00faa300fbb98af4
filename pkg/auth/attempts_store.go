package auth

import (
	"context"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// Attempt caps (security review L3). The per-IP limits (RATE_LIMIT_VERIFY,
// MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY) slow one client; these bound what
// many clients together can try against one code: an emailed code is
// deleted after OTP_MAX_ATTEMPTS wrong tries for its address (on /verify,
// and the reauthentication nonce on PUT /user), and a TOTP factor is
// locked for MFA_LOCKOUT after MFA_MAX_FAILURES wrong codes in a row. The lock is per factor, so it can be used to keep a member out of
// the second step for a while; that costs the attacker the member's
// password or session first, since only the session's owner can verify.

// otpFailed counts a wrong code typed for email against the tokens of
// types mailed there, and deletes those that reached the cap. It runs
// outside the failed verification's transaction, which rolled back.
func (a *API) otpFailed(ctx context.Context, email string, types []string) {
	// Two disjoint sets in one statement: a row both updated and deleted by
	// one statement would keep its update only.
	_, err := a.pool.Exec(ctx, `WITH gone AS (
		DELETE FROM auth.one_time_tokens
		 WHERE relates_to = $1 AND token_type = ANY($2) AND failed_attempts + 1 >= $3)
	UPDATE auth.one_time_tokens SET failed_attempts = failed_attempts + 1
	 WHERE relates_to = $1 AND token_type = ANY($2) AND failed_attempts + 1 < $3`,
		email, types, a.otpMaxAttempts)
	if err != nil {
		a.log.WarnContext(ctx, "auth: could not count a wrong code", "err", err)
	}
}

// factorLocked refuses a verification while the factor is locked.
func factorLocked(ctx context.Context, q dbtx, factorID string, now time.Time) error {
	var until *time.Time
	if err := q.QueryRow(ctx, `SELECT locked_until FROM auth.mfa_factors WHERE id = $1::uuid`, factorID).Scan(&until); err != nil {
		return translate("read factor lock", err)
	}
	if until == nil || !until.After(now) {
		return nil
	}
	secs := int64(math.Ceil(until.Sub(now).Seconds()))
	return apierr.New(http.StatusTooManyRequests, codeOverRequestRateLimit,
		"Too many wrong codes for this factor; try again in %d seconds", secs).
		WithHeader("Retry-After", strconv.FormatInt(secs, 10))
}

// factorFailed counts a wrong TOTP code and locks the factor at the cap
// (the count starts again after the lock). It reports whether it locked.
func (a *API) factorFailed(ctx context.Context, q dbtx, factorID string, now time.Time) (bool, error) {
	var locked bool
	err := q.QueryRow(ctx, `UPDATE auth.mfa_factors
		SET failed_attempts = CASE WHEN failed_attempts + 1 >= $2 THEN 0 ELSE failed_attempts + 1 END,
		    locked_until = CASE WHEN failed_attempts + 1 >= $2 THEN $3::timestamptz ELSE locked_until END
		WHERE id = $1::uuid
		RETURNING locked_until IS NOT NULL AND locked_until > $4`,
		factorID, a.cfg.Security.MFAMaxFailures, now.Add(a.cfg.Security.MFALockout), now).Scan(&locked)
	return locked, translate("count factor failure", err)
}

// factorPassed resets the count after a right code.
func factorPassed(ctx context.Context, q dbtx, factorID string) error {
	_, err := q.Exec(ctx, `UPDATE auth.mfa_factors SET failed_attempts = 0, locked_until = NULL WHERE id = $1::uuid`, factorID)
	return translate("reset factor failures", err)
}
