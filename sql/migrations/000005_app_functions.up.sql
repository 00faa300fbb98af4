-- App layer: the stored procedures of SPEC §7, with exactly the names and
-- parameter names the app calls. They run as the caller (SECURITY INVOKER),
-- so row-level security still decides what they can read, and they never
-- trust a user id argument: it must be the caller's own (service_role
-- excepted). Page numbers are 1-based.
--
-- A release is visible once its release date has come: pre-orders are stored
-- with their announced date and appear in feeds on that day. Releases with
-- no known date are visible and sort last.

CREATE OR REPLACE FUNCTION private.assert_caller(p_user_id uuid) RETURNS void
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
BEGIN
  IF auth.role() = 'service_role' THEN
    RETURN;
  END IF;
  IF p_user_id IS NULL OR p_user_id IS DISTINCT FROM auth.uid() THEN
    RAISE EXCEPTION 'The user id does not belong to the signed-in user'
      USING ERRCODE = '42501';
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION private.assert_page(p_page integer, p_size integer) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = ''
AS $$
BEGIN
  IF p_page IS NULL OR p_page < 1 THEN
    RAISE EXCEPTION 'page number must be 1 or more, got %', coalesce(p_page::text, 'null')
      USING ERRCODE = '22023';
  END IF;
  IF p_size IS NULL OR p_size < 1 OR p_size > 1000 THEN
    RAISE EXCEPTION 'page size must be between 1 and 1000, got %', coalesce(p_size::text, 'null')
      USING ERRCODE = '22023';
  END IF;
END
$$;

-- A LIKE pattern matching the term anywhere, case-insensitively with ILIKE;
-- NULL for an empty term. The term's own wildcards are escaped.
CREATE OR REPLACE FUNCTION private.contains_pattern(p_term text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT '%' || replace(replace(replace(t, '\', '\\'), '%', '\%'), '_', '\_') || '%'
    FROM nullif(btrim(p_term), '') AS t
$$;

-- Does the label match the Labels page filters? letter_filter is a single
-- letter, or '#' for names that start with anything else.
CREATE OR REPLACE FUNCTION private.label_matches(
  p_name text, p_url text, p_tags text[], p_letter text, p_tag text, p_pattern text
) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
  SELECT (nullif(btrim(p_letter), '') IS NULL
          OR (btrim(p_letter) = '#' AND lower(left(p_name, 1)) !~ '^[a-z]')
          OR lower(left(p_name, 1)) = lower(btrim(p_letter)))
     AND (nullif(btrim(p_tag), '') IS NULL OR p_tags @> ARRAY[btrim(p_tag)])
     AND (p_pattern IS NULL OR p_name ILIKE p_pattern OR p_url ILIKE p_pattern)
$$;

CREATE OR REPLACE FUNCTION private.assert_filter_type(p_filter text) RETURNS void
LANGUAGE plpgsql IMMUTABLE SET search_path = ''
AS $$
BEGIN
  IF p_filter IS NULL OR p_filter NOT IN ('all', 'checked', 'unchecked') THEN
    RAISE EXCEPTION 'filter_type must be all, checked or unchecked, got %', coalesce(p_filter, 'null')
      USING ERRCODE = '22023';
  END IF;
END
$$;

-- The caller's followed labels with their listen status. A label counts as
-- fully checked when it has visible releases and every one is listened.
CREATE OR REPLACE FUNCTION private.followed_labels_status(p_user uuid)
RETURNS TABLE (id bigint, label_name text, label_url text, tags text[], is_fully_checked boolean)
LANGUAGE sql STABLE
AS $$
  SELECT l.id, l.label_name, l.label_url, l.tags,
         EXISTS (SELECT 1 FROM public.releases r
                  WHERE r.label_id = l.id
                    AND (r.release_date IS NULL OR r.release_date <= current_date))
         AND NOT EXISTS (
           SELECT 1 FROM public.releases r
            WHERE r.label_id = l.id
              AND (r.release_date IS NULL OR r.release_date <= current_date)
              AND NOT EXISTS (SELECT 1 FROM public.user_listened_releases u
                               WHERE u.user_id = p_user AND u.release_id = r.id))
    FROM public.user_follow_labels f
    JOIN public.labels l ON l.id = f.label_id
   WHERE f.user_id = p_user
$$;

CREATE OR REPLACE FUNCTION public.get_all_filtered_labels_by_listen_status(user_id_param uuid, filter_type text)
RETURNS TABLE (id bigint, label_name text, label_url text, tags text[], is_fully_checked boolean)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_caller(user_id_param);
  PERFORM private.assert_filter_type(filter_type);
  RETURN QUERY
    SELECT s.id, s.label_name, s.label_url, s.tags, s.is_fully_checked
      FROM private.followed_labels_status(user_id_param) s
     WHERE get_all_filtered_labels_by_listen_status.filter_type = 'all'
        OR (get_all_filtered_labels_by_listen_status.filter_type = 'checked') = s.is_fully_checked
     ORDER BY lower(s.label_name), s.id;
END
$$;

CREATE OR REPLACE FUNCTION public.count_filtered_labels_by_listen_status(
  user_id_param uuid, filter_type text, search_term text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
  v_count bigint;
BEGIN
  PERFORM private.assert_caller(user_id_param);
  PERFORM private.assert_filter_type(filter_type);
  SELECT count(*) INTO v_count
    FROM private.followed_labels_status(user_id_param) s
   WHERE (count_filtered_labels_by_listen_status.filter_type = 'all'
          OR (count_filtered_labels_by_listen_status.filter_type = 'checked') = s.is_fully_checked)
     AND (v_pattern IS NULL OR s.label_name ILIKE v_pattern OR s.label_url ILIKE v_pattern);
  RETURN v_count;
END
$$;

CREATE OR REPLACE FUNCTION public.get_filtered_labels_by_listen_status(
  user_id_param uuid, filter_type text, page_number integer, items_per_page integer, search_term text DEFAULT NULL
) RETURNS TABLE (id bigint, label_name text, label_url text, tags text[], is_fully_checked boolean)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
BEGIN
  PERFORM private.assert_caller(user_id_param);
  PERFORM private.assert_filter_type(filter_type);
  PERFORM private.assert_page(page_number, items_per_page);
  RETURN QUERY
    SELECT s.id, s.label_name, s.label_url, s.tags, s.is_fully_checked
      FROM private.followed_labels_status(user_id_param) s
     WHERE (get_filtered_labels_by_listen_status.filter_type = 'all'
            OR (get_filtered_labels_by_listen_status.filter_type = 'checked') = s.is_fully_checked)
       AND (v_pattern IS NULL OR s.label_name ILIKE v_pattern OR s.label_url ILIKE v_pattern)
     ORDER BY lower(s.label_name), s.id
     LIMIT items_per_page OFFSET (page_number - 1)::bigint * items_per_page;
END
$$;

CREATE OR REPLACE FUNCTION public.get_latest_releases_per_label(p_label_ids bigint[], p_limit integer)
RETURNS TABLE (id bigint, label_id bigint, title text, artist text, release_url text,
               release_date date, image_url text, genres text[], rich boolean)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 100 THEN
    RAISE EXCEPTION 'p_limit must be between 1 and 100' USING ERRCODE = '22023';
  END IF;
  IF cardinality(p_label_ids) > 1000 THEN
    RAISE EXCEPTION 'at most 1000 label ids at a time' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich
      FROM unnest(coalesce(p_label_ids, '{}')) WITH ORDINALITY AS l(id, pos)
      CROSS JOIN LATERAL (
        SELECT * FROM public.releases r
         WHERE r.label_id = l.id
           AND (r.release_date IS NULL OR r.release_date <= current_date)
         ORDER BY r.release_date DESC NULLS LAST, r.id DESC
         LIMIT p_limit) r
     ORDER BY l.pos, r.release_date DESC NULLS LAST, r.id DESC;
END
$$;

CREATE OR REPLACE FUNCTION private.followed_or_filtered(p_user uuid, p_label_ids bigint[], p_only_followed boolean)
RETURNS bigint[]
LANGUAGE sql STABLE SET search_path = ''
AS $$
  SELECT CASE
    WHEN p_label_ids IS NOT NULL THEN p_label_ids
    WHEN p_only_followed THEN (SELECT coalesce(array_agg(f.label_id), '{}')
                                 FROM public.user_follow_labels f WHERE f.user_id = p_user)
    ELSE NULL
  END
$$;

CREATE OR REPLACE FUNCTION public.get_followed_labels(
  user_id_param uuid, page_number integer, items_per_page integer,
  letter_filter text DEFAULT NULL, tag_filter text DEFAULT NULL, search_term text DEFAULT NULL
) RETURNS TABLE (id bigint, label_name text, label_url text, tags text[])
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
BEGIN
  PERFORM private.assert_caller(user_id_param);
  PERFORM private.assert_page(page_number, items_per_page);
  RETURN QUERY
    SELECT l.id, l.label_name, l.label_url, l.tags
      FROM public.user_follow_labels f
      JOIN public.labels l ON l.id = f.label_id
     WHERE f.user_id = user_id_param
       AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern)
     ORDER BY lower(l.label_name), l.id
     LIMIT items_per_page OFFSET (page_number - 1)::bigint * items_per_page;
END
$$;

CREATE OR REPLACE FUNCTION public.get_unfollowed_labels(
  user_id_param uuid, page_number integer, items_per_page integer,
  letter_filter text DEFAULT NULL, tag_filter text DEFAULT NULL, search_term text DEFAULT NULL
) RETURNS TABLE (id bigint, label_name text, label_url text, tags text[])
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
BEGIN
  PERFORM private.assert_caller(user_id_param);
  PERFORM private.assert_page(page_number, items_per_page);
  RETURN QUERY
    SELECT l.id, l.label_name, l.label_url, l.tags
      FROM public.labels l
     WHERE NOT EXISTS (SELECT 1 FROM public.user_follow_labels f
                        WHERE f.user_id = user_id_param AND f.label_id = l.id)
       AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern)
     ORDER BY lower(l.label_name), l.id
     LIMIT items_per_page OFFSET (page_number - 1)::bigint * items_per_page;
END
$$;

CREATE OR REPLACE FUNCTION public.count_followed_labels(
  user_id_param uuid, letter_filter text DEFAULT NULL, tag_filter text DEFAULT NULL, search_term text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
  v_count bigint;
BEGIN
  PERFORM private.assert_caller(user_id_param);
  SELECT count(*) INTO v_count
    FROM public.user_follow_labels f
    JOIN public.labels l ON l.id = f.label_id
   WHERE f.user_id = user_id_param
     AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern);
  RETURN v_count;
END
$$;

CREATE OR REPLACE FUNCTION public.count_unfollowed_labels(
  user_id_param uuid, letter_filter text DEFAULT NULL, tag_filter text DEFAULT NULL, search_term text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
  v_count bigint;
BEGIN
  PERFORM private.assert_caller(user_id_param);
  SELECT count(*) INTO v_count
    FROM public.labels l
   WHERE NOT EXISTS (SELECT 1 FROM public.user_follow_labels f
                      WHERE f.user_id = user_id_param AND f.label_id = l.id)
     AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern);
  RETURN v_count;
END
$$;

-- Random releases for Explore. Instead of sorting every candidate by
-- random(), it reads the candidates in the order of their fixed random_key
-- from a random starting point (wrapping around once), so the cost is
-- proportional to the rows returned, not to the table.
CREATE OR REPLACE FUNCTION public.get_random_releases(
  user_id uuid, label_ids bigint[] DEFAULT NULL, exclude_ids bigint[] DEFAULT NULL,
  num_releases integer DEFAULT 9, genre_filters text[] DEFAULT NULL, time_range_days integer DEFAULT 90
) RETURNS TABLE (id bigint, label_id bigint, title text, artist text, release_url text,
                 release_date date, image_url text, genres text[], rich boolean,
                 listened boolean, labels jsonb)
LANGUAGE plpgsql VOLATILE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_user uuid := get_random_releases.user_id;
  v_labels bigint[] := get_random_releases.label_ids;
  v_exclude bigint[] := coalesce(get_random_releases.exclude_ids, '{}');
  v_n integer := get_random_releases.num_releases;
  v_genres text[] := nullif(get_random_releases.genre_filters, '{}');
  v_days integer := coalesce(get_random_releases.time_range_days, 90);
  v_from date;
  v_start double precision := random();
BEGIN
  PERFORM private.assert_caller(v_user);
  IF v_n IS NULL OR v_n < 1 OR v_n > 100 THEN
    RAISE EXCEPTION 'num_releases must be between 1 and 100' USING ERRCODE = '22023';
  END IF;
  IF v_days < 0 OR v_days > 36500 THEN
    RAISE EXCEPTION 'time_range_days must be between 0 and 36500' USING ERRCODE = '22023';
  END IF;
  v_from := current_date - v_days;
  RETURN QUERY
    WITH picked AS (
      (SELECT r.* FROM public.releases r
        WHERE r.genres <> '{}'
          AND r.release_date BETWEEN v_from AND current_date
          AND (v_labels IS NULL OR r.label_id = ANY (v_labels))
          AND (v_genres IS NULL OR r.genres && v_genres)
          AND r.id <> ALL (v_exclude)
          AND r.random_key >= v_start
        ORDER BY r.random_key
        LIMIT v_n)
      UNION ALL
      (SELECT r.* FROM public.releases r
        WHERE r.genres <> '{}'
          AND r.release_date BETWEEN v_from AND current_date
          AND (v_labels IS NULL OR r.label_id = ANY (v_labels))
          AND (v_genres IS NULL OR r.genres && v_genres)
          AND r.id <> ALL (v_exclude)
          AND r.random_key < v_start
        ORDER BY r.random_key
        LIMIT v_n)
      LIMIT v_n
    )
    SELECT p.id, p.label_id, p.title, p.artist, p.release_url, p.release_date, p.image_url, p.genres, p.rich,
           EXISTS (SELECT 1 FROM public.user_listened_releases u
                    WHERE u.user_id = v_user AND u.release_id = p.id),
           jsonb_build_object('label_name', l.label_name, 'label_url', l.label_url)
      FROM picked p
      JOIN public.labels l ON l.id = p.label_id;
END
$$;

-- The New Releases feed: newest visible releases of the given labels, or of
-- the caller's followed labels when label_ids is null.
CREATE OR REPLACE FUNCTION public.get_latest_releases(
  user_id uuid, label_ids bigint[] DEFAULT NULL, page_size integer DEFAULT 9, page integer DEFAULT 1
) RETURNS TABLE (id bigint, label_id bigint, title text, artist text, release_url text,
                 release_date date, image_url text, genres text[], rich boolean,
                 listened boolean, labels jsonb)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_user uuid := get_latest_releases.user_id;
  v_labels bigint[];
  v_size integer := get_latest_releases.page_size;
  v_page integer := get_latest_releases.page;
BEGIN
  PERFORM private.assert_caller(v_user);
  PERFORM private.assert_page(v_page, v_size);
  v_labels := private.followed_or_filtered(v_user, get_latest_releases.label_ids, true);
  RETURN QUERY
    SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich,
           EXISTS (SELECT 1 FROM public.user_listened_releases u
                    WHERE u.user_id = v_user AND u.release_id = r.id),
           jsonb_build_object('label_name', l.label_name, 'label_url', l.label_url)
      FROM public.releases r
      JOIN public.labels l ON l.id = r.label_id
     WHERE r.label_id = ANY (v_labels)
       AND (r.release_date IS NULL OR r.release_date <= current_date)
     ORDER BY r.release_date DESC NULLS LAST, r.id DESC
     LIMIT v_size OFFSET (v_page - 1)::bigint * v_size;
END
$$;

-- Clients reach these only when signed in; helpers in private are not
-- exposed over the API at all.
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure FROM pg_proc p
     WHERE p.pronamespace = 'public'::regnamespace
       AND p.proname IN ('get_all_filtered_labels_by_listen_status', 'count_filtered_labels_by_listen_status',
                         'get_filtered_labels_by_listen_status', 'get_latest_releases_per_label',
                         'get_followed_labels', 'get_unfollowed_labels', 'count_followed_labels',
                         'count_unfollowed_labels', 'get_random_releases', 'get_latest_releases')
  LOOP
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, anon', f);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated, service_role', f);
  END LOOP;
  FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'private'::regnamespace
  LOOP
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated, service_role', f);
  END LOOP;
END
$$;
