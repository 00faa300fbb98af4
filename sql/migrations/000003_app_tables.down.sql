DROP TABLE IF EXISTS public.labels_to_add;
DROP TABLE IF EXISTS public.user_listened_releases;
DROP TABLE IF EXISTS public.user_follow_labels;
DROP TABLE IF EXISTS public.releases;
DROP TABLE IF EXISTS public.labels;
DROP EXTENSION IF EXISTS pg_trgm;
