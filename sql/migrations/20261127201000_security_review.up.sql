-- Security review of 2026-11-27 (issue #26, docs/../SECURITY.md).
--
-- H1: admin power needs the second factor. A member with a verified TOTP
-- factor is an admin only from an aal2 session (the token's "aal" claim,
-- which the gateway signs and Supabase's GoTrue also sets). From an aal1
-- session such an admin gets exactly what a member gets, on the console,
-- through /rest/v1 and in SQL alike, since every admin procedure and policy
-- asks is_admin(). Admins without a factor keep aal1 power: requiring aal2
-- of them would lock out every admin who has not enrolled yet.
CREATE OR REPLACE FUNCTION public.is_admin() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_role text := current_setting('role');
  v_claims jsonb := auth.jwt();
BEGIN
  IF v_role = 'none' AND v_claims IS NULL THEN
    RETURN pg_catalog.pg_has_role(session_user,
      (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = 'public.labels'::regclass), 'MEMBER');
  END IF;
  IF v_role = 'service_role' THEN
    RETURN true;
  END IF;
  IF v_role <> 'authenticated' OR coalesce(v_claims -> 'app_metadata' ->> 'role', '') <> 'admin' THEN
    RETURN false;
  END IF;
  RETURN EXISTS (
    SELECT 1 FROM auth.users u
     WHERE u.id = auth.uid()
       AND u.deleted_at IS NULL
       AND (u.banned_until IS NULL OR u.banned_until <= now())
       AND u.raw_app_meta_data ->> 'role' = 'admin'
       AND (coalesce(v_claims ->> 'aal', '') = 'aal2'
            OR NOT EXISTS (SELECT 1 FROM auth.mfa_factors f
                            WHERE f.user_id = u.id AND f.status::text = 'verified')));
END
$$;

-- The audit row says from which assurance level an admin acted (null for
-- the service role and the owner, who have no session).
CREATE OR REPLACE FUNCTION private.audit(p_action text, p_target text, p_detail jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = ''
AS $$
DECLARE
  v_role text := current_setting('role');
  v_detail jsonb := coalesce(p_detail, '{}');
BEGIN
  IF v_role = 'authenticated' THEN
    v_detail := v_detail || jsonb_build_object('aal', coalesce(auth.jwt() ->> 'aal', 'aal1'));
  END IF;
  INSERT INTO private.admin_audit (actor_id, actor, action, target, detail)
  VALUES (CASE WHEN v_role = 'authenticated' THEN auth.uid() END,
          CASE v_role
            WHEN 'authenticated' THEN coalesce(auth.email(), auth.uid()::text)
            WHEN 'service_role' THEN 'service_role'
            ELSE 'owner:' || session_user
          END,
          p_action, p_target, v_detail);
END
$$;

-- L2: hidden labels leak nothing.
--
-- The submission queue: a member reads their own submissions and the ones
-- still pending (so the app's "already in the queue" check keeps working
-- across members, SPEC 4); a processed row of someone else, which may name
-- a hidden label, only admins read.
ALTER POLICY queue_read ON public.labels_to_add
  USING (user_id = (SELECT auth.uid()) OR NOT is_processed OR (SELECT public.is_admin()));

-- A follow or a listen must name a row the member can read. The labels and
-- releases policies hide hidden ones, so a hidden id and a missing id are
-- both the same row-level-security refusal (42501), checked before the
-- foreign key could tell them apart (23503).
ALTER POLICY follows_insert_own ON public.user_follow_labels
  WITH CHECK (user_id = (SELECT auth.uid())
              AND EXISTS (SELECT 1 FROM public.labels l WHERE l.id = label_id));
ALTER POLICY listens_insert_own ON public.user_listened_releases
  WITH CHECK (user_id = (SELECT auth.uid())
              AND EXISTS (SELECT 1 FROM public.releases r WHERE r.id = release_id));
ALTER POLICY listens_update_own ON public.user_listened_releases
  USING (user_id = (SELECT auth.uid()))
  WITH CHECK (user_id = (SELECT auth.uid())
              AND EXISTS (SELECT 1 FROM public.releases r WHERE r.id = release_id));
