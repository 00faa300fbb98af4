-- The earlier schema has no verify-only keys: every stored key there is a
-- candidate signer (the newest signs). Keys that only verify are removed
-- rather than left to start signing.
DELETE FROM auth.signing_keys WHERE signs_from IS NULL OR private_key IS NULL;

ALTER TABLE auth.signing_keys
    DROP CONSTRAINT signing_keys_public_only_verifies,
    DROP CONSTRAINT signing_keys_one_half,
    DROP COLUMN signs_from,
    DROP COLUMN public_key,
    ALTER COLUMN private_key SET NOT NULL;
