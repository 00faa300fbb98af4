-- Platform layer: the roles a Supabase project provides.
-- anon and authenticated are what clients act as; service_role bypasses RLS
-- for trusted server code; authenticator is the login the REST gateway uses.
-- It is NOINHERIT, so without an explicit role switch it can touch nothing.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'anon') THEN
    CREATE ROLE anon NOLOGIN NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticated') THEN
    CREATE ROLE authenticated NOLOGIN NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'service_role') THEN
    CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'authenticator') THEN
    CREATE ROLE authenticator LOGIN NOINHERIT;
  END IF;
END
$$;

GRANT anon, authenticated, service_role TO authenticator;

-- The owner that runs the gateway switches its REST connections to
-- authenticator, so it must be a member (a no-op for superusers).
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'authenticator', 'MEMBER') THEN
    EXECUTE format('GRANT authenticator TO %I', current_user);
  END IF;
END
$$;

CREATE SCHEMA IF NOT EXISTS extensions;
GRANT USAGE ON SCHEMA extensions TO anon, authenticated, service_role;

GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;
-- service_role is trusted server code: like on hosted Supabase it gets every
-- privilege on what the app creates; anon and authenticated get only what
-- the app layer grants table by table.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO service_role;
