-- Demo labels (the invented catalogue `labelbase dev` and `labelbase demo`
-- load) are marked, so the crawler never asks the real Bandcamp for them:
-- offline that is minutes of futile retries, online an invented subdomain
-- that happens to exist would pour a stranger's releases into the demo.
-- Not granted to anon or authenticated: the app never reads it.
ALTER TABLE public.labels ADD COLUMN IF NOT EXISTS demo boolean NOT NULL DEFAULT false;

-- A pass that stops early leaves submissions queued; the run row says how
-- many, and whether Bandcamp could not be reached at all (the scheduler
-- backs off) rather than refused requests.
ALTER TABLE private.ingest_runs
  ADD COLUMN IF NOT EXISTS queue_left integer NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS unreachable boolean NOT NULL DEFAULT false;
