DROP FUNCTION IF EXISTS public.get_label_tags(boolean);
DROP FUNCTION IF EXISTS public.get_explore_genres(integer);
