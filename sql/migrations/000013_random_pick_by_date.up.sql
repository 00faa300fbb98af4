-- Explore's random pick for a short time range (SPEC's "today", a week).
--
-- get_random_releases walks releases_random_pick_idx from a random point
-- and keeps the releases inside the range. That costs about
-- num_releases × (all releases / releases in range) index entries: nothing
-- for three months or more, but for "today" at 4M releases it read ~80,000
-- entries (15 ms p50, 27 ms p95 in docs/performance.md). For a range that
-- holds a few hundred releases it is cheaper to read the range itself and
-- sort it by random_key, which this index allows without touching the table
-- (the same columns as the random-pick index, ordered by date).
--
-- Which path is cheaper depends on the range the caller asked for, so the
-- function is planned for each call's actual arguments: PL/pgSQL would
-- otherwise switch to one generic plan after five calls, and a generic plan
-- cannot know whether v_from is yesterday or ten years ago. Planning costs
-- a fraction of a millisecond; the wrong plan cost tens.
CREATE INDEX releases_date_pick_idx ON public.releases (release_date)
  INCLUDE (random_key, label_id, id, genres) WHERE genres <> '{}';

ALTER FUNCTION public.get_random_releases(uuid, bigint[], bigint[], integer, text[], integer)
  SET plan_cache_mode = force_custom_plan;
