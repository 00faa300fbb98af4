ALTER POLICY labels_read ON public.labels
  USING (id <> ALL (SELECT h.label_id FROM private.hidden_labels h));
ALTER POLICY releases_read ON public.releases
  USING (label_id <> ALL (SELECT h.label_id FROM private.hidden_labels h));
ALTER POLICY follows_select_own ON public.user_follow_labels
  USING (user_id = (SELECT auth.uid()) AND label_id <> ALL (SELECT h.label_id FROM private.hidden_labels h));

CREATE OR REPLACE FUNCTION public.get_unfollowed_labels(
  user_id_param uuid, page_number integer, items_per_page integer,
  letter_filter text DEFAULT NULL, tag_filter text DEFAULT NULL, search_term text DEFAULT NULL
) RETURNS TABLE (id bigint, label_name text, label_url text, tags text[])
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
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
       AND l.id <> ALL (SELECT h.label_id FROM private.hidden_labels h)
       AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern)
     ORDER BY lower(l.label_name), l.id
     LIMIT items_per_page OFFSET (page_number - 1)::bigint * items_per_page;
END
$$;

CREATE OR REPLACE FUNCTION public.count_unfollowed_labels(
  user_id_param uuid, letter_filter text DEFAULT NULL, tag_filter text DEFAULT NULL, search_term text DEFAULT NULL
) RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(search_term);
  v_count bigint;
BEGIN
  PERFORM private.assert_caller(user_id_param);
  IF v_pattern IS NULL AND nullif(btrim(letter_filter), '') IS NULL AND nullif(btrim(tag_filter), '') IS NULL THEN
    SELECT c.n - (SELECT count(*) FROM private.hidden_labels h)
         - (SELECT count(*) FROM public.user_follow_labels f
             WHERE f.user_id = user_id_param
               AND NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = f.label_id))
      INTO v_count
      FROM private.label_count c;
    RETURN v_count;
  END IF;
  SELECT (SELECT count(*) FROM public.labels l
           WHERE l.id <> ALL (SELECT h.label_id FROM private.hidden_labels h)
             AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern))
       - (SELECT count(*)
            FROM public.user_follow_labels f
            JOIN public.labels l ON l.id = f.label_id
           WHERE f.user_id = user_id_param
             AND l.id <> ALL (SELECT h.label_id FROM private.hidden_labels h)
             AND private.label_matches(l.label_name, l.label_url, l.tags, letter_filter, tag_filter, v_pattern))
    INTO v_count;
  RETURN v_count;
END
$$;
