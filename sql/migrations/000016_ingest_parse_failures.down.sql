ALTER TABLE private.ingest_runs DROP CONSTRAINT IF EXISTS ingest_runs_stop_reason_check;
UPDATE private.ingest_runs SET stop_reason = NULL WHERE stop_reason = 'all_failed';
ALTER TABLE private.ingest_runs ADD CONSTRAINT ingest_runs_stop_reason_check
  CHECK (stop_reason IN ('refused', 'offline'));
ALTER TABLE private.ingest_runs
  DROP COLUMN IF EXISTS parse_failures,
  DROP COLUMN IF EXISTS network_failures;
DROP TABLE IF EXISTS private.label_parse_failures;
