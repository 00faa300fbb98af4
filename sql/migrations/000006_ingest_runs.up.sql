-- One row per ingest pass (see pkg/ingest): when it ran, how it ended and
-- what it did. Written by the crawler as the tables' owner; never exposed
-- over the API.
CREATE TABLE private.ingest_runs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  status text NOT NULL DEFAULT 'running'
    CHECK (status IN ('running', 'succeeded', 'failed', 'skipped')),
  labels_checked integer NOT NULL DEFAULT 0,
  labels_valid integer NOT NULL DEFAULT 0,
  labels_invalid integer NOT NULL DEFAULT 0,
  labels_retried integer NOT NULL DEFAULT 0,
  releases_added integer NOT NULL DEFAULT 0,
  releases_updated integer NOT NULL DEFAULT 0,
  error text,
  CHECK ((status = 'running') = (finished_at IS NULL))
);

-- The scheduler's catch-up check: the latest succeeded pass.
CREATE INDEX ingest_runs_succeeded_idx ON private.ingest_runs (started_at DESC) WHERE status = 'succeeded';

-- No grants: only the owner (the crawler) reads or writes it.
ALTER TABLE private.ingest_runs ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.ingest_runs FROM PUBLIC, anon, authenticated;
