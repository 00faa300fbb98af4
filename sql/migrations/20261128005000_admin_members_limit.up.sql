-- admin_members returned every member: 10,000 rows at the scale dataset
-- (docs/performance.md, "The app at size"), 0.16 s warm and 0.66 s cold, all
-- sent to the console. It now returns at most p_limit rows (default 100, at
-- most 500), newest first, as admin_labels does; the console says when the
-- list is cut and the search (by email) finds the others. The follows count
-- and the invite are then worked out for the returned rows only.

DROP FUNCTION public.admin_members(text);

CREATE FUNCTION public.admin_members(p_search text DEFAULT NULL, p_limit integer DEFAULT 100)
RETURNS TABLE (id uuid, email text, joined_at timestamptz, invite_code text, invite_note text, follows bigint,
               banned boolean, banned_until timestamptz, is_admin boolean, last_sign_in_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(p_search);
BEGIN
  PERFORM private.assert_admin();
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 500 THEN
    RAISE EXCEPTION 'p_limit must be between 1 and 500' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT u.id, u.email::text, u.created_at, i.code, i.note,
           (SELECT count(*) FROM public.user_follow_labels f WHERE f.user_id = u.id),
           coalesce(u.banned_until > now(), false), u.banned_until,
           coalesce(u.raw_app_meta_data ->> 'role' = 'admin', false), u.last_sign_in_at
      FROM (SELECT u.* FROM auth.users u
             WHERE u.deleted_at IS NULL
               AND (v_pattern IS NULL OR u.email ILIKE v_pattern)
             ORDER BY u.created_at DESC, u.id
             LIMIT p_limit) u
      LEFT JOIN LATERAL (
        SELECT c.code, c.note FROM public.invite_redemptions r
          JOIN public.invite_codes c ON c.id = r.invite_id
         WHERE r.user_id = u.id ORDER BY r.redeemed_at LIMIT 1) i ON true
     ORDER BY u.created_at DESC, u.id;
END
$$;

REVOKE ALL ON FUNCTION public.admin_members(text, integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.admin_members(text, integer) TO authenticated, service_role;
