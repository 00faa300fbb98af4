ALTER TABLE private.ingest_runs DROP COLUMN IF EXISTS unreachable, DROP COLUMN IF EXISTS queue_left;
ALTER TABLE public.labels DROP COLUMN IF EXISTS demo;
