-- Back to counting the range's releases for every caller (000021's body).
CREATE OR REPLACE FUNCTION public.get_explore_genres(time_range_days integer DEFAULT 90)
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

DROP FUNCTION private.release_genre_days_sum(integer);
DROP TRIGGER hidden_labels_genre_days_truncate ON private.hidden_labels;
DROP TRIGGER hidden_labels_genre_days_delete ON private.hidden_labels;
DROP TRIGGER hidden_labels_genre_days_update ON private.hidden_labels;
DROP TRIGGER hidden_labels_genre_days_insert ON private.hidden_labels;
DROP TRIGGER releases_genre_days_truncate ON public.releases;
DROP TRIGGER releases_genre_days_delete ON public.releases;
DROP TRIGGER releases_genre_days_update ON public.releases;
DROP TRIGGER releases_genre_days_insert ON public.releases;
DROP TRIGGER labels_genre_days_delete ON public.labels;
DROP FUNCTION private.release_genre_days_label_deleted();
DROP FUNCTION private.release_genre_days_hidden_track();
DROP FUNCTION private.release_genre_days_track();
DROP TABLE private.release_genre_days;
