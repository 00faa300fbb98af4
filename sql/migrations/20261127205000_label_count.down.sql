-- Back to counting every label (000023's body).
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

DROP TRIGGER labels_count_truncate ON public.labels;
DROP TRIGGER labels_count_delete ON public.labels;
DROP TRIGGER labels_count_insert ON public.labels;
DROP FUNCTION private.label_count_track();
DROP TABLE private.label_count;
