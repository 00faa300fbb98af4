-- The app's procedures at scale (50k labels, 2M+ releases, 10k users): new
-- bodies for the ones whose cost grew with the catalogue or with a user's
-- follows, same names, parameters, results and semantics as 000005.
-- Everything stays plain SQL/PL/pgSQL run as the caller, so the app layer
-- still applies unchanged to hosted Supabase.

-- Explore picks releases along random_key; the filters it applies (dates,
-- labels, genres, excluded ids) are all in this index, so the walk over
-- candidates that do not match reads the index alone (an index-only scan)
-- and only the releases picked are fetched from the table. It replaces
-- releases_random_idx, which had the same key and predicate.
CREATE INDEX releases_random_pick_idx ON public.releases (random_key)
  INCLUDE (release_date, label_id, id, genres) WHERE genres <> '{}';
DROP INDEX public.releases_random_idx;

-- The Labels page's letter filter (lower(left(label_name, 1)), which
-- private.label_matches compares once PL/pgSQL plans with the letter known)
-- in the page's order. label_name is included so the count of a letter is
-- an index-only scan: PostgreSQL answers an expression from the index only
-- when the columns it reads are there too.
CREATE INDEX labels_letter_idx ON public.labels (lower(left(label_name, 1)), lower(label_name), id)
  INCLUDE (label_name);

-- The New Releases feed, as a merge of the followed labels' own date
-- orders instead of a sort of all their releases: a page ending at row
-- v_want needs at most v_want rows from any one label, and all of them are
-- at least as new as the v_want-th row. So it first reads the newest
-- v_want / labels releases of each label (releases_label_date_idx, index
-- only), whose v_want-th newest date is a lower bound for the page
-- (v_cut), then reads each label's releases from today down to that date
-- only. What it reads follows the page's depth and the number of labels,
-- not how many releases the labels have. Undated releases sort last, so
-- they can only be on the page when the probe found fewer than v_want
-- dated ones; then there is no bound and it reads each label's first
-- v_want releases.
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
  v_want bigint;
  v_probe bigint;
  v_cut date;
  v_ids bigint[];
BEGIN
  PERFORM private.assert_caller(v_user);
  PERFORM private.assert_page(v_page, v_size);
  v_labels := ARRAY(SELECT DISTINCT x.id
                      FROM unnest(private.followed_or_filtered(v_user, get_latest_releases.label_ids, true)) AS x(id)
                     WHERE x.id IS NOT NULL);
  v_want := v_page::bigint * v_size;
  v_probe := (v_want + greatest(cardinality(v_labels), 1) - 1) / greatest(cardinality(v_labels), 1);
  SELECT c.release_date INTO v_cut
    FROM unnest(v_labels) AS l(id)
    CROSS JOIN LATERAL (
      SELECT r.release_date, r.id FROM public.releases r
       WHERE r.label_id = l.id AND r.release_date <= current_date
       ORDER BY r.release_date DESC NULLS LAST, r.id DESC
       LIMIT v_probe) c
   ORDER BY c.release_date DESC NULLS LAST, c.id DESC
   LIMIT 1 OFFSET v_want - 1;
  IF v_cut IS NULL THEN
    v_ids := ARRAY(
      SELECT c.id
        FROM unnest(v_labels) AS l(id)
        CROSS JOIN LATERAL (
          SELECT r.release_date, r.id FROM public.releases r
           WHERE r.label_id = l.id AND (r.release_date IS NULL OR r.release_date <= current_date)
           ORDER BY r.release_date DESC NULLS LAST, r.id DESC
           LIMIT v_want) c
       ORDER BY c.release_date DESC NULLS LAST, c.id DESC
       LIMIT v_size OFFSET v_want - v_size);
  ELSE
    v_ids := ARRAY(
      SELECT c.id
        FROM unnest(v_labels) AS l(id)
        CROSS JOIN LATERAL (
          SELECT r.release_date, r.id FROM public.releases r
           WHERE r.label_id = l.id AND r.release_date >= v_cut AND r.release_date <= current_date
           ORDER BY r.release_date DESC NULLS LAST, r.id DESC
           LIMIT v_want) c
       ORDER BY c.release_date DESC NULLS LAST, c.id DESC
       LIMIT v_size OFFSET v_want - v_size);
  END IF;
  RETURN QUERY
    SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich,
           EXISTS (SELECT 1 FROM public.user_listened_releases u
                    WHERE u.user_id = v_user AND u.release_id = r.id),
           jsonb_build_object('label_name', l.label_name, 'label_url', l.label_url)
      FROM unnest(v_ids) WITH ORDINALITY AS p(id, pos)
      JOIN public.releases r ON r.id = p.id
      JOIN public.labels l ON l.id = r.label_id
     ORDER BY p.pos;
END
$$;

-- Random releases for Explore: the same walk along random_key as 000005,
-- but over releases_random_pick_idx alone (ids only); the table is read for
-- the picked releases.
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
      (SELECT r.id, r.random_key FROM public.releases r
        WHERE r.genres <> '{}'
          AND r.release_date BETWEEN v_from AND current_date
          AND (v_labels IS NULL OR r.label_id = ANY (v_labels))
          AND (v_genres IS NULL OR r.genres && v_genres)
          AND r.id <> ALL (v_exclude)
          AND r.random_key >= v_start
        ORDER BY r.random_key
        LIMIT v_n)
      UNION ALL
      (SELECT r.id, r.random_key FROM public.releases r
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
    SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich,
           EXISTS (SELECT 1 FROM public.user_listened_releases u
                    WHERE u.user_id = v_user AND u.release_id = r.id),
           jsonb_build_object('label_name', l.label_name, 'label_url', l.label_url)
      FROM picked p
      JOIN public.releases r ON r.id = p.id
      JOIN public.labels l ON l.id = r.label_id;
END
$$;

-- Unfollowed labels counted as all matching labels minus the followed
-- matching ones: the first count needs no anti-join against the follows
-- and can be answered from an index; every followed label is a label, and
-- a label is followed at most once, so the difference is exact.
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
  SELECT (SELECT count(*) FROM public.labels l
           WHERE private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern))
       - (SELECT count(*)
            FROM public.user_follow_labels f
            JOIN public.labels l ON l.id = f.label_id
           WHERE f.user_id = user_id_param
             AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern))
    INTO v_count;
  RETURN v_count;
END
$$;

-- The caller's followed labels with their listen status, as in 000005, but
-- always computed from the user's follows outward. Inlined into its callers
-- (000005), the planner started from the Collection search instead: for
-- 'techno' at scale it read the 4,000 labels whose name matches through
-- the trigram index, worked out the listen status of each (a condition is
-- evaluated as low as its columns allow, and it read only l.id) and only
-- then kept the user's own 100. As PL/pgSQL it is never inlined: it runs on
-- its own from the follows (bounded by the user's follows, not the
-- catalogue), with its plan cached for the session like the callers', and
-- the callers filter its rows. The status reads f.label_id, so that no plan
-- could work it out before the join. It looks for the label's first
-- visible release not listened first (usually the newest one, so one probe
-- decides), and only when there is none checks that there is a visible
-- release at all.
CREATE OR REPLACE FUNCTION private.followed_labels_status(p_user uuid)
RETURNS TABLE (id bigint, label_name text, label_url text, tags text[], is_fully_checked boolean)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT l.id, l.label_name, l.label_url, l.tags,
         coalesce((SELECT false FROM public.releases r
                    WHERE r.label_id = f.label_id
                      AND (r.release_date IS NULL OR r.release_date <= current_date)
                      AND NOT EXISTS (SELECT 1 FROM public.user_listened_releases u
                                       WHERE u.user_id = p_user AND u.release_id = r.id)
                    LIMIT 1),
                  EXISTS (SELECT 1 FROM public.releases r
                           WHERE r.label_id = f.label_id
                             AND (r.release_date IS NULL OR r.release_date <= current_date)))
    FROM public.user_follow_labels f
    JOIN public.labels l ON l.id = f.label_id
   WHERE f.user_id = p_user;
END
$$;
