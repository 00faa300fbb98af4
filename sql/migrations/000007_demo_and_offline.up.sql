-- Demo labels (pkg/demo) are invented: the crawler must never visit them,
-- or a made-up subdomain that happens to exist on Bandcamp would pour a
-- stranger's releases into the demo catalogue. They are listed here rather
-- than flagged on public.labels so the API's tables stay as the frontend
-- knows them.
CREATE TABLE private.demo_labels (
  label_id bigint PRIMARY KEY REFERENCES public.labels (id) ON DELETE CASCADE
);

ALTER TABLE private.demo_labels ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.demo_labels FROM PUBLIC, anon, authenticated;

-- Why a pass stopped early, in a form the scheduler can act on: after
-- 'offline' passes it backs off before trying again.
ALTER TABLE private.ingest_runs ADD COLUMN stop_reason text
  CHECK (stop_reason IN ('refused', 'offline'));
