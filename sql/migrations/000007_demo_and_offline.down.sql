ALTER TABLE private.ingest_runs DROP COLUMN IF EXISTS stop_reason;
DROP TABLE IF EXISTS private.demo_labels;
