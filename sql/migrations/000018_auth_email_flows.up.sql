-- Email flows (magic links and email codes, confirmation, invites, email
-- change, reauthentication) in GoTrue's own tables and columns.
--
-- auth.one_time_tokens holds one live token per user and kind, as GoTrue's
-- table does, with relates_to the address it was mailed to. Differences
-- from GoTrue: token_hash is a SHA-256 of the link's token, which is itself
-- keyed by a secret (pkg/auth/onetime.go), so a copy of this table yields
-- no usable link or code ("pkce_"-prefixed for the PKCE flow, as GoTrue's);
-- token_type is a checked text instead of an enum type.
CREATE TABLE IF NOT EXISTS auth.one_time_tokens (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    token_type  text NOT NULL CHECK (token_type IN ('confirmation_token', 'reauthentication_token',
                  'recovery_token', 'email_change_token_new', 'email_change_token_current', 'phone_change_token')),
    token_hash  text NOT NULL CHECK (char_length(token_hash) > 0),
    relates_to  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT one_time_tokens_user_id_token_type_key UNIQUE (user_id, token_type)
);
CREATE INDEX IF NOT EXISTS one_time_tokens_token_hash_hash_idx ON auth.one_time_tokens USING hash (token_hash);
CREATE INDEX IF NOT EXISTS one_time_tokens_relates_to_hash_idx ON auth.one_time_tokens USING hash (relates_to);

-- Live sign-in secrets: no API role reads them, not even service_role.
REVOKE ALL ON auth.one_time_tokens FROM PUBLIC, anon, authenticated, service_role;

-- GoTrue's columns for the email change and reauthentication state.
ALTER TABLE auth.users
    ADD COLUMN IF NOT EXISTS email_change_token_current varchar(255) DEFAULT '',
    ADD COLUMN IF NOT EXISTS email_change_confirm_status smallint DEFAULT 0
        CHECK (email_change_confirm_status >= 0 AND email_change_confirm_status <= 2),
    ADD COLUMN IF NOT EXISTS reauthentication_token varchar(255) DEFAULT '',
    ADD COLUMN IF NOT EXISTS reauthentication_sent_at timestamptz;

-- INVITE_REQUIRED=false: the gateway marks the transactions of its own
-- sign-ups with labelbase.invite_required = 'off' and the invite trigger
-- lets them pass. Only the gateway's owner connection can set it (clients
-- reach no set_config); with the setting on, or from any other writer,
-- every sign-up still needs a usable code.
CREATE OR REPLACE FUNCTION private.redeem_invite_code() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_code text := btrim(coalesce(NEW.raw_user_meta_data ->> 'invite_code', ''), E' \t\n\r\f');
  v_invite_id bigint;
BEGIN
  IF coalesce(current_setting('labelbase.admin_user_create', true), '') = 'on'
     OR coalesce(current_setting('labelbase.invite_required', true), '') = 'off' THEN
    RETURN NEW;
  END IF;

  UPDATE public.invite_codes
     SET uses = uses + 1
   WHERE code = v_code
     AND revoked_at IS NULL
     AND (expires_at IS NULL OR expires_at > now())
     AND uses < max_uses
  RETURNING id INTO v_invite_id;

  IF v_invite_id IS NULL THEN
    RAISE EXCEPTION 'Invalid invite code'
      USING ERRCODE = 'P0001',
            DETAIL = 'invalid_invite_code',
            HINT = 'Ask a member for a new invite code.';
  END IF;

  INSERT INTO public.invite_redemptions (invite_id, user_id) VALUES (v_invite_id, NEW.id);
  RETURN NEW;
END
$$;
