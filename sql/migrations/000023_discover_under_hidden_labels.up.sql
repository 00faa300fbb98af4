-- Discover (the labels a member does not follow) searched by name or tag at
-- the catalogue's scale. Since 000017 the labels policy hides hidden labels;
-- a non-trivial policy makes PostgreSQL evaluate it before any condition
-- whose operators are not leakproof, and the search (ILIKE through the
-- trigram index) and the tag filter (@> through the GIN index) are not, so
-- both lost their indexes: get_unfollowed_labels with a search went from
-- 1.5 ms to 37 ms p95 over 50,000 labels (docs/performance.md).
--
-- These two procedures therefore run as the tables' owner, where no policy
-- applies, and say themselves what the policies would: the caller is the
-- signed-in user (private.assert_caller, as before), their own follows
-- only, and no hidden label. Every other member read keeps going through
-- RLS (the followed-label procedures read the follows, whose policy hides
-- hidden labels without touching the labels' indexes).

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
