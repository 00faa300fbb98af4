-- count_unfollowed_labels without a filter (the Discover tab as it opens)
-- counted every label: an index scan of the whole catalogue (~50,000 labels
-- at the scale dataset) with the hidden-label check per row, the slowest
-- member RPC since 000023 (docs/performance.md, "Speed III"). The number of
-- labels is now kept in one row, moved by statement-level triggers, and the
-- unfiltered count reads it: total, minus hidden labels (each one a label:
-- hidden_labels' key references labels), minus the caller's follows of
-- labels that are not hidden. The filtered counts are unchanged.
--
-- The cost moves to writers: every statement inserting or deleting labels
-- updates the one row, so concurrent label writers queue on it until they
-- commit. Labels are written by the crawler (one at a time, under its
-- advisory lock) and by admins; members never write them.

CREATE TABLE private.label_count (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  n bigint NOT NULL
);
REVOKE ALL ON private.label_count FROM PUBLIC, anon, authenticated;
INSERT INTO private.label_count (n) SELECT count(*) FROM public.labels;

CREATE FUNCTION private.label_count_track() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE private.label_count SET n = n + (SELECT count(*) FROM label_count_new);
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE private.label_count SET n = n - (SELECT count(*) FROM label_count_old);
  ELSE
    UPDATE private.label_count SET n = 0;
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION private.label_count_track() FROM PUBLIC;

CREATE TRIGGER labels_count_insert AFTER INSERT ON public.labels
  REFERENCING NEW TABLE AS label_count_new FOR EACH STATEMENT EXECUTE FUNCTION private.label_count_track();
CREATE TRIGGER labels_count_delete AFTER DELETE ON public.labels
  REFERENCING OLD TABLE AS label_count_old FOR EACH STATEMENT EXECUTE FUNCTION private.label_count_track();
CREATE TRIGGER labels_count_truncate AFTER TRUNCATE ON public.labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_count_track();

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
