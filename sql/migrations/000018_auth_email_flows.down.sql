CREATE OR REPLACE FUNCTION private.redeem_invite_code() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_code text := btrim(coalesce(NEW.raw_user_meta_data ->> 'invite_code', ''), E' \t\n\r\f');
  v_invite_id bigint;
BEGIN
  IF coalesce(current_setting('labelbase.admin_user_create', true), '') = 'on' THEN
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

ALTER TABLE auth.users
    DROP COLUMN IF EXISTS email_change_token_current,
    DROP COLUMN IF EXISTS email_change_confirm_status,
    DROP COLUMN IF EXISTS reauthentication_token,
    DROP COLUMN IF EXISTS reauthentication_sent_at;
DROP TABLE IF EXISTS auth.one_time_tokens;
