-- get_explore_genres counted every genre of every release in the range
-- (000021): ~94,000 releases for 180 days at the scale dataset (2M
-- releases), 0.1–0.9 s, and growing with the catalogue. Members now read a
-- kept count per release date and genre, private.release_genre_days:
-- summing a range's days by genre reads at most (days + 1) × genres rows
-- through the primary key, however large the catalogue.
--
-- The count is what the role `authenticated` sees, as the old query counts
-- it: per release_date and genre, the (release, genre) pairs of unnest(genres)
-- over releases with a date whose label is not hidden (releases_read). A
-- genre repeated in one release's array counts twice, as it does there.
-- One difference: a NULL element in a genres array cannot be a key, so it
-- counts nothing here, where the old query returned a NULL genre for it.
-- The crawler never writes one (its genres are Go strings).
--
-- get_explore_genres reads the count only when current_user is
-- `authenticated`, through private.release_genre_days_sum (members cannot
-- read the table). service_role and the owner see hidden labels too, so
-- they keep the scan, unchanged.
--
-- Statement-level triggers keep the count:
--   releases       INSERT adds, DELETE subtracts, UPDATE does both (all
--                  columns: a trigger with a column list cannot have
--                  transition tables; rows whose label, date and genres did
--                  not change cancel out), TRUNCATE empties it;
--   hidden_labels  INSERT subtracts the label's releases, DELETE adds them
--                  back, UPDATE both, TRUNCATE recounts everything.
-- Deleting a label cascades to its releases and its hidden_labels row, and
-- the cascades' triggers fire when the whole DELETE is done: neither the
-- releases nor the hidden row are there any more to tell whether the
-- releases were counted. So a hidden label is unhidden just before it is
-- deleted (a row trigger on labels): its releases are counted back, then
-- subtracted with the cascade like any visible label's.
-- The triggers read the other table as it is when they fire, so one
-- statement that writes both releases and hidden_labels (a writable CTE)
-- would be counted wrong; nothing does that.
--
-- Concurrency. Writers upsert with ON CONFLICT … DO UPDATE, rows in key
-- order, so two writers lock shared rows in the same order and queue
-- rather than deadlock. Hiding a label and writing its releases must not
-- miss each other (READ COMMITTED: each sees the other only once
-- committed), so they meet on the label's row: release triggers take FOR
-- KEY SHARE on the labels of the rows they count, hidden_labels triggers
-- FOR UPDATE on theirs, both before they count. The one that comes second
-- waits for the first to commit, and its next statement (a new snapshot)
-- sees the first's rows. Release writers never wait for each other on a
-- label row, nor for the crawler's label updates (FOR NO KEY UPDATE), and
-- members' reads take no lock. This relies on READ COMMITTED, which the gateway and
-- the crawler use: under REPEATABLE READ the waiting side would count from
-- its older snapshot.

CREATE TABLE private.release_genre_days (
  day date NOT NULL,
  genre text NOT NULL,
  releases integer NOT NULL,
  PRIMARY KEY (day, genre)
);
REVOKE ALL ON private.release_genre_days FROM PUBLIC, anon, authenticated;

CREATE FUNCTION private.release_genre_days_track() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM private.release_genre_days;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM FROM public.labels l WHERE l.id IN (SELECT n.label_id FROM release_genre_days_new n)
     ORDER BY l.id FOR KEY SHARE;
    INSERT INTO private.release_genre_days AS d (day, genre, releases)
    SELECT c.day, c.genre, c.n
      FROM (SELECT r.release_date AS day, g.genre, count(*)::integer AS n
              FROM release_genre_days_new r
             CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
             WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = r.label_id)
             GROUP BY r.release_date, g.genre) c
     ORDER BY c.day, c.genre
    ON CONFLICT (day, genre) DO UPDATE SET releases = d.releases + excluded.releases;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM FROM public.labels l WHERE l.id IN (SELECT o.label_id FROM release_genre_days_old o)
     ORDER BY l.id FOR KEY SHARE;
    INSERT INTO private.release_genre_days AS d (day, genre, releases)
    SELECT c.day, c.genre, c.n
      FROM (SELECT r.release_date AS day, g.genre, -count(*)::integer AS n
              FROM release_genre_days_old r
             CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
             WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = r.label_id)
             GROUP BY r.release_date, g.genre) c
     ORDER BY c.day, c.genre
    ON CONFLICT (day, genre) DO UPDATE SET releases = d.releases + excluded.releases;
  ELSE
    PERFORM FROM public.labels l
     WHERE l.id IN (SELECT o.label_id FROM release_genre_days_old o
                    UNION SELECT n.label_id FROM release_genre_days_new n)
     ORDER BY l.id FOR KEY SHARE;
    INSERT INTO private.release_genre_days AS d (day, genre, releases)
    SELECT c.day, c.genre, c.n
      FROM (SELECT r.release_date AS day, g.genre, sum(r.sign)::integer AS n
              FROM (SELECT o.label_id, o.release_date, o.genres, -1 AS sign FROM release_genre_days_old o
                    UNION ALL
                    SELECT n.label_id, n.release_date, n.genres, 1 FROM release_genre_days_new n) r
             CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
             WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = r.label_id)
             GROUP BY r.release_date, g.genre
            HAVING sum(r.sign) <> 0) c
     ORDER BY c.day, c.genre
    ON CONFLICT (day, genre) DO UPDATE SET releases = d.releases + excluded.releases;
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION private.release_genre_days_track() FROM PUBLIC;

CREATE FUNCTION private.release_genre_days_hidden_track() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    -- Every label is visible again: count everything anew.
    DELETE FROM private.release_genre_days;
    INSERT INTO private.release_genre_days (day, genre, releases)
    SELECT r.release_date, g.genre, count(*)
      FROM public.releases r
     CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
     WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
     GROUP BY r.release_date, g.genre
     ORDER BY r.release_date, g.genre;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM FROM public.labels l WHERE l.id IN (SELECT n.label_id FROM hidden_genre_days_new n)
     ORDER BY l.id FOR UPDATE;
    INSERT INTO private.release_genre_days AS d (day, genre, releases)
    SELECT c.day, c.genre, c.n
      FROM (SELECT r.release_date AS day, g.genre, -count(*)::integer AS n
              FROM public.releases r
             CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
             WHERE r.label_id IN (SELECT n.label_id FROM hidden_genre_days_new n)
               AND r.release_date IS NOT NULL AND g.genre IS NOT NULL
             GROUP BY r.release_date, g.genre) c
     ORDER BY c.day, c.genre
    ON CONFLICT (day, genre) DO UPDATE SET releases = d.releases + excluded.releases;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM FROM public.labels l WHERE l.id IN (SELECT o.label_id FROM hidden_genre_days_old o)
     ORDER BY l.id FOR UPDATE;
    INSERT INTO private.release_genre_days AS d (day, genre, releases)
    SELECT c.day, c.genre, c.n
      FROM (SELECT r.release_date AS day, g.genre, count(*)::integer AS n
              FROM public.releases r
             CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
             WHERE r.label_id IN (SELECT o.label_id FROM hidden_genre_days_old o)
               AND r.release_date IS NOT NULL AND g.genre IS NOT NULL
             GROUP BY r.release_date, g.genre) c
     ORDER BY c.day, c.genre
    ON CONFLICT (day, genre) DO UPDATE SET releases = d.releases + excluded.releases;
  ELSE
    -- Labels no longer hidden come back, newly hidden ones leave; a label
    -- on both sides (its row updated in place) cancels out.
    PERFORM FROM public.labels l
     WHERE l.id IN (SELECT o.label_id FROM hidden_genre_days_old o
                    UNION SELECT n.label_id FROM hidden_genre_days_new n)
     ORDER BY l.id FOR UPDATE;
    INSERT INTO private.release_genre_days AS d (day, genre, releases)
    SELECT c.day, c.genre, c.n
      FROM (SELECT r.release_date AS day, g.genre, sum(s.sign)::integer AS n
              FROM (SELECT o.label_id, 1 AS sign FROM hidden_genre_days_old o
                    UNION ALL
                    SELECT n.label_id, -1 FROM hidden_genre_days_new n) s
              JOIN public.releases r ON r.label_id = s.label_id
             CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
             WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
             GROUP BY r.release_date, g.genre
            HAVING sum(s.sign) <> 0) c
     ORDER BY c.day, c.genre
    ON CONFLICT (day, genre) DO UPDATE SET releases = d.releases + excluded.releases;
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION private.release_genre_days_hidden_track() FROM PUBLIC;

-- See the header: a hidden label is unhidden before it is deleted.
CREATE FUNCTION private.release_genre_days_label_deleted() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = OLD.id) THEN
    DELETE FROM private.hidden_labels h WHERE h.label_id = OLD.id;
  END IF;
  RETURN OLD;
END
$$;
REVOKE ALL ON FUNCTION private.release_genre_days_label_deleted() FROM PUBLIC;

CREATE TRIGGER labels_genre_days_delete BEFORE DELETE ON public.labels
  FOR EACH ROW EXECUTE FUNCTION private.release_genre_days_label_deleted();

CREATE TRIGGER releases_genre_days_insert AFTER INSERT ON public.releases
  REFERENCING NEW TABLE AS release_genre_days_new
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_track();
CREATE TRIGGER releases_genre_days_update AFTER UPDATE ON public.releases
  REFERENCING OLD TABLE AS release_genre_days_old NEW TABLE AS release_genre_days_new
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_track();
CREATE TRIGGER releases_genre_days_delete AFTER DELETE ON public.releases
  REFERENCING OLD TABLE AS release_genre_days_old
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_track();
CREATE TRIGGER releases_genre_days_truncate AFTER TRUNCATE ON public.releases
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_track();

CREATE TRIGGER hidden_labels_genre_days_insert AFTER INSERT ON private.hidden_labels
  REFERENCING NEW TABLE AS hidden_genre_days_new
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_hidden_track();
CREATE TRIGGER hidden_labels_genre_days_update AFTER UPDATE ON private.hidden_labels
  REFERENCING OLD TABLE AS hidden_genre_days_old NEW TABLE AS hidden_genre_days_new
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_hidden_track();
CREATE TRIGGER hidden_labels_genre_days_delete AFTER DELETE ON private.hidden_labels
  REFERENCING OLD TABLE AS hidden_genre_days_old
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_hidden_track();
CREATE TRIGGER hidden_labels_genre_days_truncate AFTER TRUNCATE ON private.hidden_labels
  FOR EACH STATEMENT EXECUTE FUNCTION private.release_genre_days_hidden_track();

-- Filled after the triggers exist: creating them waited for writers in
-- flight and holds them off until this migration commits, so the count
-- starts from everything committed and misses nothing. One pass over the
-- catalogue (seconds at 2M releases), written in key order so that a
-- range's days share a few pages.
INSERT INTO private.release_genre_days (day, genre, releases)
SELECT r.release_date, g.genre, count(*)
  FROM public.releases r
 CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
 WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = r.label_id)
 GROUP BY r.release_date, g.genre
 ORDER BY r.release_date, g.genre;
ANALYZE private.release_genre_days;

-- The member path: a range's days by genre, through the primary key.
CREATE FUNCTION private.release_genre_days_sum(p_days integer)
RETURNS TABLE (genre text, releases bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = ''
AS $$
  SELECT d.genre, sum(d.releases)::bigint
    FROM private.release_genre_days d
   WHERE d.day BETWEEN current_date - p_days AND current_date
     AND d.releases > 0
   GROUP BY d.genre
   ORDER BY d.genre;
$$;
REVOKE ALL ON FUNCTION private.release_genre_days_sum(integer) FROM PUBLIC, anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION private.release_genre_days_sum(integer) TO authenticated;

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
  -- Members: the kept count (what RLS lets `authenticated` see).
  IF current_user = 'authenticated' THEN
    RETURN QUERY SELECT k.genre, k.releases FROM private.release_genre_days_sum(v_days) AS k;
    RETURN;
  END IF;
  -- Everyone else sees hidden labels too: count the range's releases.
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
