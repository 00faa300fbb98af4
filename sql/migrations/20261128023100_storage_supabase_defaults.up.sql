-- Two things Supabase projects take for granted, found missing by loading a
-- seed shaped like storage-js's test seed after migrate up (issue #29):
--
-- 1. Supabase's databases resolve the extensions schema without a prefix
--    ("$user", public, extensions), so seeds call crypt() and gen_salt()
--    unqualified. This database gets the same default search_path, unless
--    its owner already chose one (then it is left alone), and only when the
--    migrating role may change it (the owner or a superuser); otherwise a
--    notice says what to run. Gateway requests are unaffected: each of
--    their transactions sets its own search_path.
DO $$
DECLARE
  v_db oid := (SELECT oid FROM pg_database WHERE datname = current_database());
BEGIN
  IF EXISTS (SELECT 1 FROM pg_db_role_setting s, unnest(s.setconfig) c
              WHERE s.setdatabase = v_db AND s.setrole = 0 AND c LIKE 'search_path=%') THEN
    RETURN;
  END IF;
  IF NOT (pg_has_role(current_user, (SELECT datdba FROM pg_database WHERE oid = v_db), 'MEMBER')
          OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)) THEN
    RAISE NOTICE 'not the database owner: run ALTER DATABASE % SET search_path = "$user", public, extensions as its owner',
      quote_ident(current_database());
    RETURN;
  END IF;
  EXECUTE format('ALTER DATABASE %I SET search_path = "$user", public, extensions', current_database());
END
$$;

-- 2. storage.extension() as Supabase defines it: the text after the file
--    name's last dot, and the whole file name when it has no dot (the first
--    version here answered '' for that; a policy comparing extensions must
--    decide the same on both).
CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  _parts text[];
  _filename text;
BEGIN
  SELECT string_to_array(name, '/') INTO _parts;
  SELECT _parts[array_length(_parts, 1)] INTO _filename;
  RETURN reverse(split_part(reverse(_filename), '.', 1));
END
$$;
