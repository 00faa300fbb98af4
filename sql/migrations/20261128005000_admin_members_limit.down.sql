DROP FUNCTION public.admin_members(text, integer);

CREATE OR REPLACE FUNCTION public.admin_members(p_search text DEFAULT NULL::text)
 RETURNS TABLE(id uuid, email text, joined_at timestamp with time zone, invite_code text, invite_note text, follows bigint, banned boolean, banned_until timestamp with time zone, is_admin boolean, last_sign_in_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO ''
AS $function$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(p_search);
BEGIN
  PERFORM private.assert_admin();
  RETURN QUERY
    SELECT u.id, u.email::text, u.created_at, i.code, i.note,
           (SELECT count(*) FROM public.user_follow_labels f WHERE f.user_id = u.id),
           coalesce(u.banned_until > now(), false), u.banned_until,
           coalesce(u.raw_app_meta_data ->> 'role' = 'admin', false), u.last_sign_in_at
      FROM auth.users u
      LEFT JOIN LATERAL (
        SELECT c.code, c.note FROM public.invite_redemptions r
          JOIN public.invite_codes c ON c.id = r.invite_id
         WHERE r.user_id = u.id ORDER BY r.redeemed_at LIMIT 1) i ON true
     WHERE u.deleted_at IS NULL
       AND (v_pattern IS NULL OR u.email ILIKE v_pattern)
     ORDER BY u.created_at DESC, u.id;
END
$function$;

REVOKE ALL ON FUNCTION public.admin_members(text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.admin_members(text) TO authenticated, service_role;
