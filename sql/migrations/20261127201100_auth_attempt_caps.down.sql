ALTER TABLE auth.mfa_factors DROP COLUMN IF EXISTS locked_until;
ALTER TABLE auth.mfa_factors DROP COLUMN IF EXISTS failed_attempts;
ALTER TABLE auth.one_time_tokens DROP COLUMN IF EXISTS failed_attempts;
