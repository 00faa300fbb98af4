DROP TABLE IF EXISTS private.ingest_runs;
