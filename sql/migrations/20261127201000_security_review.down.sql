-- Back to 000017's is_admin(), audit() and policies (000003's listens).
ALTER POLICY listens_update_own ON public.user_listened_releases
  USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
ALTER POLICY listens_insert_own ON public.user_listened_releases
  WITH CHECK (user_id = (SELECT auth.uid()));
ALTER POLICY follows_insert_own ON public.user_follow_labels
  WITH CHECK (user_id = (SELECT auth.uid()) AND label_id <> ALL (SELECT h.label_id FROM private.hidden_labels h));
ALTER POLICY queue_read ON public.labels_to_add USING (true);

CREATE OR REPLACE FUNCTION private.audit(p_action text, p_target text, p_detail jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = ''
AS $$
DECLARE
  v_role text := current_setting('role');
BEGIN
  INSERT INTO private.admin_audit (actor_id, actor, action, target, detail)
  VALUES (CASE WHEN v_role = 'authenticated' THEN auth.uid() END,
          CASE v_role
            WHEN 'authenticated' THEN coalesce(auth.email(), auth.uid()::text)
            WHEN 'service_role' THEN 'service_role'
            ELSE 'owner:' || session_user
          END,
          p_action, p_target, coalesce(p_detail, '{}'));
END
$$;

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
       AND u.raw_app_meta_data ->> 'role' = 'admin');
END
$$;
