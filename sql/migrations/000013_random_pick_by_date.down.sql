ALTER FUNCTION public.get_random_releases(uuid, bigint[], bigint[], integer, text[], integer)
  RESET plan_cache_mode;
DROP INDEX IF EXISTS public.releases_date_pick_idx;
