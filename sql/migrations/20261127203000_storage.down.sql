DROP FUNCTION IF EXISTS public.admin_storage_use();
DROP SCHEMA IF EXISTS storage CASCADE;
-- pgcrypto stays: other SQL (and a project's seeds) may use it.
