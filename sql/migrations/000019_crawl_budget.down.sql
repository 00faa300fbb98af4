DROP TABLE IF EXISTS private.release_page_reads;
DROP TABLE IF EXISTS private.label_page_validators;
-- The made-up releases the up migration deleted are not restored.
