-- The choices the app's filters offer, computed by the database rather than
-- from what happens to be on screen.
--
-- get_explore_genres: every genre of the releases Explore can pick from in a
-- time range (same range and "has genres" rule as get_random_releases), with
-- how many releases carry it. The range is read through a date index
-- (sql/indexes_test.go checks the plans), never by scanning every release.
--
-- get_label_tags: every tag of the labels in one Labels tab (followed by the
-- caller, or not), with how many labels carry it, most used first. The row
-- of tag chips is built from it, so it does not change while a tag filter
-- narrows the list below it.
--
-- Both are SECURITY INVOKER: RLS on releases, labels and user_follow_labels
-- decides what they see, and the caller is auth.uid().
CREATE FUNCTION public.get_explore_genres(time_range_days integer DEFAULT 90)
RETURNS TABLE (genre text, releases bigint)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
DECLARE
  v_days integer := coalesce(get_explore_genres.time_range_days, 90);
BEGIN
  IF v_days < 0 OR v_days > 36500 THEN
    RAISE EXCEPTION 'time_range_days must be between 0 and 36500' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT g.genre, count(*)::bigint
      FROM public.releases r
     CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
     WHERE r.genres <> '{}'
       AND r.release_date BETWEEN current_date - v_days AND current_date
     GROUP BY g.genre
     ORDER BY g.genre;
END
$$;

CREATE FUNCTION public.get_label_tags(followed boolean)
RETURNS TABLE (tag text, labels bigint)
LANGUAGE sql STABLE SET search_path = ''
AS $$
  SELECT t.tag, count(*)::bigint
    FROM public.labels l
   CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
   WHERE EXISTS (SELECT 1 FROM public.user_follow_labels f
                  WHERE f.user_id = (SELECT auth.uid()) AND f.label_id = l.id) = get_label_tags.followed
   GROUP BY t.tag
   ORDER BY count(*) DESC, t.tag;
$$;

REVOKE ALL ON FUNCTION public.get_explore_genres(integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.get_explore_genres(integer) TO authenticated, service_role;
REVOKE ALL ON FUNCTION public.get_label_tags(boolean) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.get_label_tags(boolean) TO authenticated, service_role;
