-- App layer: what the web app's live views and avatars need (docs/app-live.md).
-- Runs unchanged on hosted Supabase: it uses only realtime.send, policies on
-- realtime.messages, storage.buckets/objects and storage.foldername().
--
-- Live updates are database broadcasts on private topics, not
-- postgres_changes: a DELETE from user_listened_releases would reach
-- postgres_changes subscribers as its bare id (RLS cannot be checked on a
-- deleted row) and could not be filtered by user; and a crawl inserting
-- thousands of releases would cost one change per row, where one
-- statement-level broadcast per crawl statement says the same.

-- listens:<uid> — the member's own marks, for their other tabs and devices.
CREATE OR REPLACE FUNCTION private.live_listen_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM realtime.send(jsonb_build_object('release_id', OLD.release_id, 'listened', false),
                          'listen', 'listens:' || OLD.user_id::text, true);
    RETURN OLD;
  END IF;
  PERFORM realtime.send(jsonb_build_object('release_id', NEW.release_id, 'listened', true),
                        'listen', 'listens:' || NEW.user_id::text, true);
  RETURN NEW;
END
$$;
REVOKE ALL ON FUNCTION private.live_listen_changed() FROM PUBLIC, anon, authenticated;
CREATE TRIGGER live_listen_changed
  AFTER INSERT OR DELETE ON public.user_listened_releases
  FOR EACH ROW EXECUTE FUNCTION private.live_listen_changed();

-- releases — one message per inserting statement: new releases counted per
-- label, hidden labels left out (they must leak nothing to members).
CREATE OR REPLACE FUNCTION private.live_releases_added() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_counts jsonb;
BEGIN
  SELECT jsonb_object_agg(n.label_id::text, n.added) INTO v_counts
    FROM (SELECT r.label_id, count(*) AS added FROM new_rows r
           WHERE NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = r.label_id)
           GROUP BY r.label_id) n;
  IF v_counts IS NOT NULL THEN
    PERFORM realtime.send(jsonb_build_object('labels', v_counts), 'added', 'releases', true);
  END IF;
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION private.live_releases_added() FROM PUBLIC, anon, authenticated;
CREATE TRIGGER live_releases_added
  AFTER INSERT ON public.releases REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION private.live_releases_added();

-- admin — "something changed" for the console's queue and crawl views; the
-- console reloads the view named in the payload.
CREATE OR REPLACE FUNCTION private.live_admin_changed() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  PERFORM realtime.send(jsonb_build_object('view', TG_ARGV[0]), 'changed', 'admin', true);
  RETURN NULL;
END
$$;
REVOKE ALL ON FUNCTION private.live_admin_changed() FROM PUBLIC, anon, authenticated;
CREATE TRIGGER live_admin_queue
  AFTER INSERT OR UPDATE OR DELETE ON public.labels_to_add
  FOR EACH STATEMENT EXECUTE FUNCTION private.live_admin_changed('queue');
CREATE TRIGGER live_admin_crawls
  AFTER INSERT OR UPDATE ON private.ingest_runs
  FOR EACH STATEMENT EXECUTE FUNCTION private.live_admin_changed('crawls');

-- Who may receive which private topic.
CREATE POLICY app_live_listens_own ON realtime.messages FOR SELECT TO authenticated
  USING (realtime.topic() = 'listens:' || (SELECT auth.uid())::text);
CREATE POLICY app_live_releases_members ON realtime.messages FOR SELECT TO authenticated
  USING (realtime.topic() = 'releases');
CREATE POLICY app_live_admin ON realtime.messages FOR SELECT TO authenticated
  USING (realtime.topic() = 'admin' AND (SELECT public.is_admin()));

-- Avatars: a private bucket (members only read them, through signed URLs);
-- each member writes only <uid>/... . Limits match the app's checks.
INSERT INTO storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
VALUES ('avatars', 'avatars', false, 2097152, ARRAY['image/jpeg', 'image/png', 'image/webp'])
ON CONFLICT (id) DO NOTHING;

CREATE POLICY avatars_read_members ON storage.objects FOR SELECT TO authenticated
  USING (bucket_id = 'avatars');
CREATE POLICY avatars_insert_own ON storage.objects FOR INSERT TO authenticated
  WITH CHECK (bucket_id = 'avatars' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text);
CREATE POLICY avatars_update_own ON storage.objects FOR UPDATE TO authenticated
  USING (bucket_id = 'avatars' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text)
  WITH CHECK (bucket_id = 'avatars' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text);
CREATE POLICY avatars_delete_own ON storage.objects FOR DELETE TO authenticated
  USING (bucket_id = 'avatars' AND (storage.foldername(name))[1] = (SELECT auth.uid())::text);
