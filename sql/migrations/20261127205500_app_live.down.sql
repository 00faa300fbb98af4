DROP POLICY IF EXISTS avatars_delete_own ON storage.objects;
DROP POLICY IF EXISTS avatars_update_own ON storage.objects;
DROP POLICY IF EXISTS avatars_insert_own ON storage.objects;
DROP POLICY IF EXISTS avatars_read_members ON storage.objects;
-- The bucket's objects are members' data: the bucket row stays if any remain.
DELETE FROM storage.buckets b WHERE b.id = 'avatars'
  AND NOT EXISTS (SELECT 1 FROM storage.objects o WHERE o.bucket_id = b.id);

DROP POLICY IF EXISTS app_live_admin ON realtime.messages;
DROP POLICY IF EXISTS app_live_releases_members ON realtime.messages;
DROP POLICY IF EXISTS app_live_listens_own ON realtime.messages;

DROP TRIGGER IF EXISTS live_admin_crawls ON private.ingest_runs;
DROP TRIGGER IF EXISTS live_admin_queue ON public.labels_to_add;
DROP TRIGGER IF EXISTS live_releases_added ON public.releases;
DROP TRIGGER IF EXISTS live_listen_changed ON public.user_listened_releases;
DROP FUNCTION IF EXISTS private.live_admin_changed();
DROP FUNCTION IF EXISTS private.live_releases_added();
DROP FUNCTION IF EXISTS private.live_listen_changed();
