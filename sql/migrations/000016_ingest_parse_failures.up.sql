-- Parse failures (pkg/ingest): a label page or release page that Bandcamp
-- served but the parser could not read. They are kept apart from network
-- failures because they mean different work for an operator: a network
-- failure heals by itself, a parse failure needs the parser changed. A label
-- with a failure keeps its releases untouched (a page that parses to nothing
-- must never empty a label).

-- One row per label whose latest visit failed to parse; cleared when a later
-- visit parses. first_seen_at says how long the label has been stale.
CREATE TABLE private.label_parse_failures (
  label_id bigint PRIMARY KEY REFERENCES public.labels (id) ON DELETE CASCADE,
  url text NOT NULL,
  reason text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE private.label_parse_failures ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.label_parse_failures FROM PUBLIC, anon, authenticated;

-- What a pass met, separately: pages that could not be fetched and pages that
-- could not be read.
ALTER TABLE private.ingest_runs
  ADD COLUMN network_failures integer NOT NULL DEFAULT 0,
  ADD COLUMN parse_failures integer NOT NULL DEFAULT 0;

-- A pass that stopped because every request failed is not a success; the
-- stop reason says why it ended early.
ALTER TABLE private.ingest_runs DROP CONSTRAINT IF EXISTS ingest_runs_stop_reason_check;
ALTER TABLE private.ingest_runs ADD CONSTRAINT ingest_runs_stop_reason_check
  CHECK (stop_reason IN ('refused', 'offline', 'all_failed'));
