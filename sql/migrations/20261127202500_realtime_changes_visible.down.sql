DROP FUNCTION IF EXISTS realtime.changes_visible(regclass, text[], text[], text[], text[], bigint, boolean);
