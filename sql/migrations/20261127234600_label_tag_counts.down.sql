-- Back to scanning every label for every caller (000021's body).
CREATE OR REPLACE FUNCTION public.get_label_tags(followed boolean)
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

DROP FUNCTION private.label_tag_counts_read();
DROP TRIGGER hidden_labels_tag_counts_truncate ON private.hidden_labels;
DROP TRIGGER hidden_labels_tag_counts_delete ON private.hidden_labels;
DROP TRIGGER hidden_labels_tag_counts_update ON private.hidden_labels;
DROP TRIGGER hidden_labels_tag_counts_insert ON private.hidden_labels;
DROP TRIGGER labels_tag_counts_truncate ON public.labels;
DROP TRIGGER labels_tag_counts_delete ON public.labels;
DROP TRIGGER labels_tag_counts_update ON public.labels;
DROP TRIGGER labels_tag_counts_insert ON public.labels;
DROP FUNCTION private.label_tag_counts_track();
DROP FUNCTION private.label_tag_counts_refill();
DROP TABLE private.label_tag_counts;
