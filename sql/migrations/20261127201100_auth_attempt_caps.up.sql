-- Security review L3: codes cannot be guessed at leisure. Labelbase's own
-- columns on GoTrue's tables (as last_used_totp_step in 000015); GoTrue
-- limits guessing per IP only.
--
-- one_time_tokens.failed_attempts counts wrong codes typed for the
-- address a token was mailed to; at OTP_MAX_ATTEMPTS the token is deleted.
-- mfa_factors.failed_attempts counts wrong TOTP codes in a row; at
-- MFA_MAX_FAILURES the factor is locked until locked_until (MFA_LOCKOUT).
ALTER TABLE auth.one_time_tokens ADD COLUMN IF NOT EXISTS failed_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE auth.mfa_factors ADD COLUMN IF NOT EXISTS failed_attempts integer NOT NULL DEFAULT 0;
ALTER TABLE auth.mfa_factors ADD COLUMN IF NOT EXISTS locked_until timestamptz;
