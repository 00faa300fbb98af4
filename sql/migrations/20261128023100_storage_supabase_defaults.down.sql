-- Undoes exactly the up: the default search_path only where it is still the
-- one the up set, and storage.extension() as 20261127203000 defined it.
DO $$
DECLARE
  v_db oid := (SELECT oid FROM pg_database WHERE datname = current_database());
BEGIN
  IF EXISTS (SELECT 1 FROM pg_db_role_setting s, unnest(s.setconfig) c
              WHERE s.setdatabase = v_db AND s.setrole = 0
                AND c = 'search_path="$user", public, extensions') THEN
    EXECUTE format('ALTER DATABASE %I RESET search_path', current_database());
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION storage.extension(name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  _filename text;
BEGIN
  _filename := storage.filename(name);
  IF _filename IS NULL OR position('.' in _filename) = 0 THEN
    RETURN '';
  END IF;
  RETURN reverse(split_part(reverse(_filename), '.', 1));
END
$$;
