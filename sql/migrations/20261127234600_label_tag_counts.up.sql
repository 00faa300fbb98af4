-- get_label_tags (000021) built the Labels page's tag chips by unnesting the
-- tags of every label and probing the caller's follows per label: ~0.4-0.5 s
-- at the scale dataset (50,000 labels) for either tab (docs/performance.md).
-- For a member (the role `authenticated`) it now reads:
--
-- * followed => true: the caller's own follows (user_follow_labels by
--   user_id, ~100 rows, through its (user_id, label_id) key), their labels
--   and tags. No summary needed.
-- * followed => false: a kept count of tags, private.label_tag_counts,
--   minus the tags of the caller's followed labels. The count holds, per
--   tag, the number of unnest rows over the labels a member can see (every
--   label not in private.hidden_labels), exactly what the old query counted:
--   a tag repeated in one label's array counts twice, '{}' counts nothing, and
--   a NULL element counts as the tag NULL (the old query returned it as a
--   group of its own; tag is therefore UNIQUE NULLS NOT DISTINCT rather than
--   a primary key).
--
-- Any other caller (service_role, the owner, SECURITY DEFINER code) bypasses
-- RLS and sees hidden labels too, which the count does not mirror: it keeps
-- the old scan, unchanged.
--
-- The count moves with statement-level AFTER triggers (transition tables) on
-- public.labels (INSERT, DELETE, UPDATE, TRUNCATE) and on
-- private.hidden_labels (hiding subtracts the label's tags, unhiding adds them
-- back). A trigger with transition tables cannot be limited to UPDATE OF
-- tags; an update that leaves the tags as they were nets to no change and
-- writes nothing. Writers upsert an aggregated delta ordered by tag, so two
-- writers lock the count's rows in the same order. Rows that fall to 0 stay;
-- the reader skips them. A TRUNCATE of either table recounts from scratch.
--
-- Two details of keeping it exact:
-- * Deleting a hidden label cascades to its hidden_labels row before the
--   labels statement trigger runs (the cascade is a row trigger, fired
--   first), so that trigger could not tell the label was hidden. The BEFORE
--   DELETE row trigger on labels that 20261127234500 added for the genre
--   count (labels_genre_days_delete) already unhides a hidden label just
--   before it goes, and this count relies on it too: the unhide adds its tags
--   back, and the delete takes them off as for any visible label. (Migrations
--   go down in reverse order, so that trigger is there whenever this is.) Such an unhide updates the count once per hidden
--   label, ahead of the statement's ordered update, so a statement deleting
--   several hidden labels does not keep the tag order; label deletes are
--   manual and rare (no app path deletes labels).
-- * Hiding or unhiding reads the label's tags FOR SHARE, so it waits for a
--   concurrent update of them and reads the committed ones; an update that
--   comes second waits for the hide and then sees the label hidden (the
--   trigger's statements take a fresh snapshot).
--
-- The cost moves to writers: each statement writing labels' tags updates one
-- row per tag it touches (the crawler writes one label at a time; inserts and
-- deletes of labels already queue on private.label_count's one row).

CREATE TABLE private.label_tag_counts (
  tag text UNIQUE NULLS NOT DISTINCT,
  labels integer NOT NULL
);
REVOKE ALL ON private.label_tag_counts FROM PUBLIC, anon, authenticated;

-- Counts from scratch: below, and after a TRUNCATE of either table.
CREATE FUNCTION private.label_tag_counts_refill() RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = ''
AS $$
  DELETE FROM private.label_tag_counts;
  INSERT INTO private.label_tag_counts AS c (tag, labels)
  SELECT t.tag, count(*)
    FROM public.labels l
   CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
   WHERE NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = l.id)
   GROUP BY t.tag
   ORDER BY t.tag
  ON CONFLICT (tag) DO UPDATE SET labels = excluded.labels;
$$;
REVOKE ALL ON FUNCTION private.label_tag_counts_refill() FROM PUBLIC;

CREATE FUNCTION private.label_tag_counts_track() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM private.label_tag_counts_refill();
  ELSIF TG_TABLE_NAME = 'labels' AND TG_OP = 'INSERT' THEN
    INSERT INTO private.label_tag_counts AS c (tag, labels)
    SELECT t.tag, count(*)
      FROM tag_counts_new_labels l
     CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
     WHERE NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = l.id)
     GROUP BY t.tag
     ORDER BY t.tag
    ON CONFLICT (tag) DO UPDATE SET labels = c.labels + excluded.labels;
  ELSIF TG_TABLE_NAME = 'labels' AND TG_OP = 'DELETE' THEN
    INSERT INTO private.label_tag_counts AS c (tag, labels)
    SELECT t.tag, -count(*)
      FROM tag_counts_old_labels l
     CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
     WHERE NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = l.id)
     GROUP BY t.tag
     ORDER BY t.tag
    ON CONFLICT (tag) DO UPDATE SET labels = c.labels + excluded.labels;
  ELSIF TG_TABLE_NAME = 'labels' AND TG_OP = 'UPDATE' THEN
    INSERT INTO private.label_tag_counts AS c (tag, labels)
    SELECT t.tag, sum(l.n)
      FROM (SELECT l.id, l.tags, 1 FROM tag_counts_new_labels l
            UNION ALL
            SELECT l.id, l.tags, -1 FROM tag_counts_old_labels l) AS l (id, tags, n)
     CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
     WHERE NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = l.id)
     GROUP BY t.tag
    HAVING sum(l.n) <> 0
     ORDER BY t.tag
    ON CONFLICT (tag) DO UPDATE SET labels = c.labels + excluded.labels;
  ELSIF TG_TABLE_NAME = 'hidden_labels' AND TG_OP = 'INSERT' THEN
    WITH l AS (
      SELECT l.id, l.tags FROM public.labels l
       WHERE l.id IN (SELECT h.label_id FROM tag_counts_new_hidden h)
       ORDER BY l.id
         FOR SHARE)
    INSERT INTO private.label_tag_counts AS c (tag, labels)
    SELECT t.tag, -count(*)
      FROM l CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
     GROUP BY t.tag
     ORDER BY t.tag
    ON CONFLICT (tag) DO UPDATE SET labels = c.labels + excluded.labels;
  ELSIF TG_TABLE_NAME = 'hidden_labels' AND TG_OP = 'DELETE' THEN
    -- A label that no longer exists was deleted with its hidden row (the
    -- BEFORE DELETE trigger on labels unhides first, so this does not occur
    -- for a label delete); it has no tags to add back.
    WITH l AS (
      SELECT l.id, l.tags FROM public.labels l
       WHERE l.id IN (SELECT h.label_id FROM tag_counts_old_hidden h)
       ORDER BY l.id
         FOR SHARE)
    INSERT INTO private.label_tag_counts AS c (tag, labels)
    SELECT t.tag, count(*)
      FROM l CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
     GROUP BY t.tag
     ORDER BY t.tag
    ON CONFLICT (tag) DO UPDATE SET labels = c.labels + excluded.labels;
  ELSIF TG_TABLE_NAME = 'hidden_labels' AND TG_OP = 'UPDATE' THEN
    -- A changed label_id unhides the old label and hides the new one.
    WITH l AS (
      SELECT l.id, l.tags FROM public.labels l
       WHERE l.id IN (SELECT h.label_id FROM tag_counts_old_hidden h
                      UNION ALL
                      SELECT h.label_id FROM tag_counts_new_hidden h)
       ORDER BY l.id
         FOR SHARE),
    d AS (
      SELECT h.label_id, 1 AS n FROM tag_counts_old_hidden h
      UNION ALL
      SELECT h.label_id, -1 FROM tag_counts_new_hidden h)
    INSERT INTO private.label_tag_counts AS c (tag, labels)
    SELECT t.tag, sum(d.n)
      FROM d JOIN l ON l.id = d.label_id
     CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
     GROUP BY t.tag
    HAVING sum(d.n) <> 0
     ORDER BY t.tag
    ON CONFLICT (tag) DO UPDATE SET labels = c.labels + excluded.labels;
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION private.label_tag_counts_track() FROM PUBLIC;

-- The triggers come before the first count: creating them locks both tables
-- against writes until this migration commits, so no write falls between
-- the count and the triggers.
CREATE TRIGGER labels_tag_counts_insert AFTER INSERT ON public.labels
  REFERENCING NEW TABLE AS tag_counts_new_labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();
CREATE TRIGGER labels_tag_counts_update AFTER UPDATE ON public.labels
  REFERENCING OLD TABLE AS tag_counts_old_labels NEW TABLE AS tag_counts_new_labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();
CREATE TRIGGER labels_tag_counts_delete AFTER DELETE ON public.labels
  REFERENCING OLD TABLE AS tag_counts_old_labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();
CREATE TRIGGER labels_tag_counts_truncate AFTER TRUNCATE ON public.labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();

CREATE TRIGGER hidden_labels_tag_counts_insert AFTER INSERT ON private.hidden_labels
  REFERENCING NEW TABLE AS tag_counts_new_hidden
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();
CREATE TRIGGER hidden_labels_tag_counts_update AFTER UPDATE ON private.hidden_labels
  REFERENCING OLD TABLE AS tag_counts_old_hidden NEW TABLE AS tag_counts_new_hidden
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();
CREATE TRIGGER hidden_labels_tag_counts_delete AFTER DELETE ON private.hidden_labels
  REFERENCING OLD TABLE AS tag_counts_old_hidden
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();
CREATE TRIGGER hidden_labels_tag_counts_truncate AFTER TRUNCATE ON private.hidden_labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.label_tag_counts_track();

SELECT private.label_tag_counts_refill();

-- The kept counts as members see them, for get_label_tags.
CREATE FUNCTION private.label_tag_counts_read() RETURNS TABLE (tag text, labels integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = ''
AS $$
  SELECT c.tag, c.labels FROM private.label_tag_counts c WHERE c.labels > 0;
$$;
REVOKE ALL ON FUNCTION private.label_tag_counts_read() FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION private.label_tag_counts_read() TO authenticated;

CREATE OR REPLACE FUNCTION public.get_label_tags(followed boolean)
RETURNS TABLE (tag text, labels bigint)
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  IF current_user <> 'authenticated' THEN
    RETURN QUERY
      SELECT t.tag, count(*)::bigint
        FROM public.labels l
       CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
       WHERE EXISTS (SELECT 1 FROM public.user_follow_labels f
                      WHERE f.user_id = (SELECT auth.uid()) AND f.label_id = l.id) = get_label_tags.followed
       GROUP BY t.tag
       ORDER BY count(*) DESC, t.tag;
  ELSIF get_label_tags.followed THEN
    RETURN QUERY
      SELECT t.tag, count(*)::bigint
        FROM public.user_follow_labels f
        JOIN public.labels l ON l.id = f.label_id
       CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
       WHERE f.user_id = (SELECT auth.uid())
       GROUP BY t.tag
       ORDER BY count(*) DESC, t.tag;
  ELSIF NOT get_label_tags.followed THEN
    RETURN QUERY
      SELECT d.tag, sum(d.n)::bigint
        FROM (SELECT k.tag, k.labels FROM private.label_tag_counts_read() k
              UNION ALL
              SELECT t.tag, -1
                FROM public.user_follow_labels f
                JOIN public.labels l ON l.id = f.label_id
               CROSS JOIN LATERAL unnest(l.tags) AS t(tag)
               WHERE f.user_id = (SELECT auth.uid())) AS d (tag, n)
       GROUP BY d.tag
      HAVING sum(d.n) > 0
       ORDER BY sum(d.n) DESC, d.tag;
  END IF;
END
$$;
