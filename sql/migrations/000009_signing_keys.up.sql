-- Asymmetric JWT signing keys (ES256/RS256), shared by every gateway on
-- this database. The private key is PKCS#8 DER sealed with AES-256-GCM
-- under a key derived from the gateway's environment (see pkg/token/store.go),
-- so a database dump alone cannot mint tokens. The legacy HS256 key is
-- JWT_SECRET itself and is never stored.
CREATE TABLE auth.signing_keys (
    id          text PRIMARY KEY,
    algorithm   text NOT NULL CHECK (algorithm IN ('ES256', 'RS256')),
    private_key bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
-- Not even service_role may read them through /rest/v1.
REVOKE ALL ON auth.signing_keys FROM PUBLIC, anon, authenticated, service_role;
