DROP INDEX IF EXISTS auth.users_recovery_token_idx;

CREATE OR REPLACE FUNCTION private.redeem_invite_code() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_code text := btrim(coalesce(NEW.raw_user_meta_data ->> 'invite_code', ''), E' \t\n\r\f');
  v_invite_id bigint;
BEGIN
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
