-- Conditional requests (pkg/ingest): the ETag and Last-Modified that a
-- label's /music page last came with, sent back as If-None-Match and
-- If-Modified-Since so that an unchanged page can be answered 304 without a
-- body. Kept only after a page that parsed; a parse failure drops them, so
-- the next visit reads the page in full.
CREATE TABLE private.label_page_validators (
  label_id bigint PRIMARY KEY REFERENCES public.labels (id) ON DELETE CASCADE,
  etag text,
  last_modified text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (etag IS NOT NULL OR last_modified IS NOT NULL)
);

ALTER TABLE private.label_page_validators ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.label_page_validators FROM PUBLIC, anon, authenticated;

-- When each release page was last read, so that a pre-order's page is read
-- again weekly, and daily only in its last week, rather than every day
-- until it comes out (the request budget in docs/crawler.md).
CREATE TABLE private.release_page_reads (
  release_id bigint PRIMARY KEY REFERENCES public.releases (id) ON DELETE CASCADE,
  read_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE private.release_page_reads ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.release_page_reads FROM PUBLIC, anon, authenticated;

-- Before the parser knew the stub data-tralbum of /music pages, a label
-- page it could not read became a made-up release: the /music URL, titled
-- with the label's name. Every real release lives at /album/… or /track/…;
-- rows at any other path are those, and go (their listens with them).
DELETE FROM public.releases
 WHERE release_url !~ '^https?://[^/]+/(album|track)/';
