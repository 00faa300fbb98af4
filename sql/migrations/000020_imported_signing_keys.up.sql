-- Signing keys an operator brings (`labelbase keys import`): a key may now
-- only verify (tokens a project issued before it moved here stay valid
-- while another key signs), and may be only the public half of a key (a
-- hosted Supabase project publishes its keys' public halves but never
-- lets the private ones out).
--
-- signs_from is when a key became the signer; NULL means it only
-- verifies. The signer is the key with the latest signs_from. Its default
-- keeps a row inserted by an older gateway during a rolling upgrade
-- meaning what it meant then: the newest key signs.
ALTER TABLE auth.signing_keys
    ALTER COLUMN private_key DROP NOT NULL,
    ADD COLUMN public_key bytea,
    ADD COLUMN signs_from timestamptz DEFAULT now();

UPDATE auth.signing_keys SET signs_from = created_at;

ALTER TABLE auth.signing_keys
    -- Exactly one half is stored (both sealed, see pkg/token/store.go).
    ADD CONSTRAINT signing_keys_one_half CHECK ((private_key IS NULL) <> (public_key IS NULL)),
    -- A public key cannot sign.
    ADD CONSTRAINT signing_keys_public_only_verifies CHECK (private_key IS NOT NULL OR signs_from IS NULL);
