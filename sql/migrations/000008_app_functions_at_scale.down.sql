-- Back to the bodies and the index of 000005.
CREATE INDEX releases_random_idx ON public.releases (random_key) WHERE genres <> '{}';
DROP INDEX public.releases_random_pick_idx;
DROP INDEX public.labels_letter_idx;

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
