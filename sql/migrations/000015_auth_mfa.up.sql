-- TOTP two-factor authentication in GoTrue's own tables, under GoTrue's
-- column names, so factors move with their users to and from Supabase.
--
-- Differences from GoTrue:
--   * factor_type and status are checked text instead of enum types (as
--     000011 did for flow_state).
--   * last_challenged_at is not UNIQUE: two factors challenged in the same
--     microsecond are not a conflict.
--   * last_used_totp_step is Labelbase's own: the highest TOTP time step
--     (unix time / 30) a code of this factor was accepted for. A code is
--     accepted only for a later step, so each code works once (RFC 6238
--     section 5.2); GoTrue accepts a code again while it is valid.
CREATE TABLE IF NOT EXISTS auth.mfa_factors (
    id                           uuid PRIMARY KEY,
    user_id                      uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    friendly_name                text,
    factor_type                  text NOT NULL CHECK (factor_type IN ('totp', 'webauthn', 'phone')),
    status                       text NOT NULL CHECK (status IN ('unverified', 'verified')),
    created_at                   timestamptz NOT NULL,
    updated_at                   timestamptz NOT NULL,
    secret                       text,
    phone                        text,
    last_challenged_at           timestamptz,
    web_authn_credential         jsonb,
    web_authn_aaguid             uuid,
    last_webauthn_challenge_data jsonb,
    last_used_totp_step          bigint
);
CREATE INDEX IF NOT EXISTS factor_id_created_at_idx ON auth.mfa_factors (user_id, created_at);
CREATE INDEX IF NOT EXISTS mfa_factors_user_id_idx ON auth.mfa_factors (user_id);
-- A user's factors have distinct names, when they have one.
CREATE UNIQUE INDEX IF NOT EXISTS mfa_factors_user_friendly_name_unique
    ON auth.mfa_factors (friendly_name, user_id) WHERE trim(friendly_name) <> '';

CREATE TABLE IF NOT EXISTS auth.mfa_challenges (
    id                     uuid PRIMARY KEY,
    factor_id              uuid NOT NULL REFERENCES auth.mfa_factors (id) ON DELETE CASCADE,
    created_at             timestamptz NOT NULL,
    verified_at            timestamptz,
    ip_address             inet NOT NULL,
    otp_code               text,
    web_authn_session_data jsonb
);
CREATE INDEX IF NOT EXISTS mfa_challenge_created_at_idx ON auth.mfa_challenges (created_at DESC);
CREATE INDEX IF NOT EXISTS mfa_challenges_factor_id_idx ON auth.mfa_challenges (factor_id);

-- The TOTP secrets: never readable through /rest/v1, not even by
-- service_role (the admin API lists factors without them).
REVOKE ALL ON auth.mfa_factors, auth.mfa_challenges FROM PUBLIC, anon, authenticated, service_role;
