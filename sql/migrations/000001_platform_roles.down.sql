ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON TABLES FROM service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE ALL ON SEQUENCES FROM service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public REVOKE EXECUTE ON FUNCTIONS FROM service_role;
REVOKE USAGE ON SCHEMA public FROM anon, authenticated, service_role;
DROP SCHEMA IF EXISTS extensions CASCADE;
-- Roles are cluster-wide and may serve other databases of the cluster, so
-- they are left in place; dropping them here could break a neighbour.
