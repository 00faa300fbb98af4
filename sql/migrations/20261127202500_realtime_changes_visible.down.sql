DROP FUNCTION IF EXISTS realtime.changes_visible(regclass, text[], text[], text[], text[], bigint, boolean);

-- The up migration may have created the schema; drop it only when nothing
-- else (the realtime platform migration's objects) lives in it.
DO $$
BEGIN
  DROP SCHEMA IF EXISTS realtime;
EXCEPTION WHEN dependent_objects_still_exist THEN
  NULL;
END
$$;
