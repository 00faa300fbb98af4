-- PKCE for account recovery, and the authentication method of a session,
-- in GoTrue's own tables (auth.flow_state, auth.mfa_amr_claims), so the
-- schema stays what Supabase's tooling expects.
--
-- Differences from GoTrue: auth_code holds a SHA-256 of the code the
-- redirect carries, not the code itself (as recovery tokens are kept), and
-- the challenge method is a checked text instead of an enum type.
CREATE TABLE IF NOT EXISTS auth.flow_state (
    id                     uuid PRIMARY KEY,
    user_id                uuid REFERENCES auth.users (id) ON DELETE CASCADE,
    auth_code              text NOT NULL,
    code_challenge_method  text NOT NULL CHECK (code_challenge_method IN ('s256', 'plain')),
    code_challenge         text NOT NULL,
    provider_type          text NOT NULL,
    provider_access_token  text,
    provider_refresh_token text,
    created_at             timestamptz,
    updated_at             timestamptz,
    authentication_method  text NOT NULL,
    auth_code_issued_at    timestamptz
);
CREATE INDEX IF NOT EXISTS idx_auth_code ON auth.flow_state (auth_code);
CREATE INDEX IF NOT EXISTS idx_user_id_auth_method ON auth.flow_state (user_id, authentication_method);

CREATE TABLE IF NOT EXISTS auth.mfa_amr_claims (
    session_id            uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL,
    authentication_method text NOT NULL,
    id                    uuid PRIMARY KEY,
    CONSTRAINT mfa_amr_claims_session_id_authentication_method_pkey UNIQUE (session_id, authentication_method)
);

-- Secrets of a sign-in in progress: not readable through /rest/v1, not
-- even by service_role (000002 granted it every auth table there was).
REVOKE ALL ON auth.flow_state FROM PUBLIC, anon, authenticated, service_role;
GRANT SELECT ON auth.mfa_amr_claims TO service_role;
