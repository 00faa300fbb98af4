-- EXPLAIN VERBOSE over /rest/v1 (Accept: application/vnd.pgrst.plan;
-- options=verbose) shows PostgreSQL's Query Identifier when query ids are
-- computed, as on hosted Supabase, where pg_stat_statements turns
-- compute_query_id on. The gateway switches it on for such a request only
-- (a superuser-only setting, hence the grant); without the grant it
-- answers as before. Only a superuser may grant it: other owners skip it.
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) THEN
    GRANT SET ON PARAMETER compute_query_id TO authenticator;
  END IF;
END $$;
