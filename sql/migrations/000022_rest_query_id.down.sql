DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
    REVOKE SET ON PARAMETER compute_query_id FROM authenticator;
  END IF;
END $$;
