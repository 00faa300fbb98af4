-- Admins and their procedures (docs/admin.md).
--
-- Who is an admin: a member whose app_metadata carries "role": "admin".
-- app_metadata is where Supabase apps keep roles: only the service role (the
-- admin users API) or the database owner can write it, never the member, and
-- GoTrue copies it into every access token, so RLS and procedures can read it
-- from auth.jwt() on hosted Supabase as here. The JWT is checked against the
-- live row too, so revoking admin or banning takes effect at once; promotion
-- takes effect with the member's next token (sign in again, or a refresh).
--
-- Not-found refusals use SQLSTATE PT404, PostgREST's way for SQL to choose
-- the HTTP status (404); P0002 would be a 500 there.
--
-- Everything runs on what hosted Supabase provides (auth.jwt(), auth.uid(),
-- the anon/authenticated/service_role roles); the procedures are SECURITY
-- DEFINER because they read auth.users and private tables the caller cannot,
-- and each starts with private.assert_admin().

-- True for an admin over the API, for the service role, and for the
-- database owner (or a superuser) in psql: no role switch and no JWT. The
-- 'role' setting is what set_config('role', ...) or SET ROLE chose; a
-- SECURITY DEFINER function does not change it, so inside the procedures
-- below it still names the caller's role, not the owner's.
CREATE OR REPLACE FUNCTION public.is_admin() RETURNS boolean
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_role text := current_setting('role');
  v_claims jsonb := auth.jwt();
BEGIN
  IF v_role = 'none' AND v_claims IS NULL THEN
    RETURN pg_catalog.pg_has_role(session_user,
      (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = 'public.labels'::regclass), 'MEMBER');
  END IF;
  IF v_role = 'service_role' THEN
    RETURN true;
  END IF;
  IF v_role <> 'authenticated' OR coalesce(v_claims -> 'app_metadata' ->> 'role', '') <> 'admin' THEN
    RETURN false;
  END IF;
  RETURN EXISTS (
    SELECT 1 FROM auth.users u
     WHERE u.id = auth.uid()
       AND u.deleted_at IS NULL
       AND (u.banned_until IS NULL OR u.banned_until <= now())
       AND u.raw_app_meta_data ->> 'role' = 'admin');
END
$$;
REVOKE ALL ON FUNCTION public.is_admin() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.is_admin() TO anon, authenticated, service_role;

CREATE OR REPLACE FUNCTION private.assert_admin() RETURNS void
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
BEGIN
  IF NOT public.is_admin() THEN
    RAISE EXCEPTION 'Only admins may do this' USING ERRCODE = '42501';
  END IF;
END
$$;

-- One row per admin action, whoever took it and however (console, CLI, psql).
CREATE TABLE private.admin_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  -- The admin's user id over the API; NULL for the owner or the service role.
  actor_id uuid,
  -- The admin's email, 'service_role', or 'owner:<login role>'.
  actor text NOT NULL,
  action text NOT NULL,
  target text,
  detail jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_audit_at_idx ON private.admin_audit (at DESC, id DESC);
ALTER TABLE private.admin_audit ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.admin_audit FROM PUBLIC, anon, authenticated;

CREATE OR REPLACE FUNCTION private.audit(p_action text, p_target text, p_detail jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql VOLATILE SET search_path = ''
AS $$
DECLARE
  v_role text := current_setting('role');
BEGIN
  INSERT INTO private.admin_audit (actor_id, actor, action, target, detail)
  VALUES (CASE WHEN v_role = 'authenticated' THEN auth.uid() END,
          CASE v_role
            WHEN 'authenticated' THEN coalesce(auth.email(), auth.uid()::text)
            WHEN 'service_role' THEN 'service_role'
            ELSE 'owner:' || session_user
          END,
          p_action, p_target, coalesce(p_detail, '{}'));
END
$$;

-- Hidden labels. A side table, like private.demo_labels, rather than a
-- column: public.labels stays as the frontend and its generated types know
-- it, members cannot read who hid what, and RLS can refer to it.
CREATE TABLE private.hidden_labels (
  label_id bigint PRIMARY KEY REFERENCES public.labels (id) ON DELETE CASCADE,
  hidden_at timestamptz NOT NULL DEFAULT now(),
  hidden_by uuid
);
ALTER TABLE private.hidden_labels ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.hidden_labels FROM PUBLIC, anon, authenticated;

-- Members (and anon) may read which label ids are hidden, and nothing else
-- of the table: the policies below test a row against it as the caller.
-- The private schema is not exposed over the API, so this is no new surface.
-- Read as a plain subquery, PostgreSQL hashes the ids once per statement
-- ("NOT (hashed SubPlan)"); a SECURITY DEFINER function here cost a member's
-- single-row read some 40 % of its database time (bench:http, the floor).
GRANT SELECT (label_id) ON private.hidden_labels TO anon, authenticated;
CREATE POLICY hidden_labels_read ON private.hidden_labels FOR SELECT TO anon, authenticated USING (true);

-- A hidden label leaves everything members read: the app's procedures run as
-- the caller, so these policies take it (and its releases) out of every list,
-- count, feed and Explore pick, and out of direct table reads too. A member's
-- follow of it stays stored (unhiding brings it back) but is not listed, and
-- a hidden label cannot be followed. The crawler reads as the tables' owner,
-- to whom RLS does not apply, so hidden labels stay current.
ALTER POLICY labels_read ON public.labels
  USING (id <> ALL (SELECT h.label_id FROM private.hidden_labels h));
ALTER POLICY releases_read ON public.releases
  USING (label_id <> ALL (SELECT h.label_id FROM private.hidden_labels h));
ALTER POLICY follows_select_own ON public.user_follow_labels
  USING (user_id = (SELECT auth.uid()) AND label_id <> ALL (SELECT h.label_id FROM private.hidden_labels h));
ALTER POLICY follows_insert_own ON public.user_follow_labels
  WITH CHECK (user_id = (SELECT auth.uid()) AND label_id <> ALL (SELECT h.label_id FROM private.hidden_labels h));

-- Crawl requests: "crawl now" from the console, picked up by the next
-- scheduler tick of any gateway (pkg/ingest/scheduler.go), which claims the
-- open requests and runs a pass.
CREATE TABLE private.crawl_requests (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- NULL: a whole pass was asked for.
  label_id bigint REFERENCES public.labels (id) ON DELETE CASCADE,
  requested_at timestamptz NOT NULL DEFAULT now(),
  requested_by text NOT NULL,
  picked_up_at timestamptz
);
CREATE INDEX crawl_requests_open_idx ON private.crawl_requests (id) WHERE picked_up_at IS NULL;
ALTER TABLE private.crawl_requests ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.crawl_requests FROM PUBLIC, anon, authenticated;

-- When the scheduler plans its next pass; it writes the one row whenever it
-- schedules, so the console can say when the next pass comes.
CREATE TABLE private.crawl_schedule (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  next_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE private.crawl_schedule ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON private.crawl_schedule FROM PUBLIC, anon, authenticated;

-- The submission queue with its submitter. status: pending (not processed
-- yet), refused (processed, not a label; reason says why) or done.
CREATE OR REPLACE FUNCTION public.admin_submissions(p_status text DEFAULT NULL)
RETURNS TABLE (id bigint, label_url text, status text, reason text, submitter_id uuid, submitter_email text,
               submitted_at timestamptz, processed_at timestamptz, attempts integer,
               last_attempt_at timestamptz, label_id bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_admin();
  IF p_status IS NOT NULL AND p_status NOT IN ('pending', 'refused', 'done') THEN
    RAISE EXCEPTION 'p_status must be pending, refused or done, got %', p_status USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT q.id, q.label_url,
           CASE WHEN NOT q.is_processed THEN 'pending' WHEN q.is_valid THEN 'done' ELSE 'refused' END,
           q.error, q.user_id, u.email::text, q.created_at, q.processed_at, q.attempts, q.last_attempt_at, q.label_id
      FROM public.labels_to_add q
      LEFT JOIN auth.users u ON u.id = q.user_id
     WHERE p_status IS NULL
        OR (p_status = 'pending' AND NOT q.is_processed)
        OR (p_status = 'done' AND q.is_processed AND q.is_valid)
        OR (p_status = 'refused' AND q.is_processed AND NOT q.is_valid)
     ORDER BY q.is_processed, q.created_at DESC, q.id DESC;
END
$$;

-- Puts a pending or refused submission back in the queue as new and asks
-- for a pass, so it is tried at the next tick.
CREATE OR REPLACE FUNCTION public.admin_retry_submission(p_id bigint) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_row public.labels_to_add;
BEGIN
  PERFORM private.assert_admin();
  SELECT * INTO v_row FROM public.labels_to_add WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'No submission %', coalesce(p_id::text, 'null') USING ERRCODE = 'PT404';
  END IF;
  IF v_row.is_processed AND v_row.is_valid THEN
    RAISE EXCEPTION 'Submission % was added as a label already', p_id USING ERRCODE = '22023';
  END IF;
  UPDATE public.labels_to_add
     SET is_processed = false, is_valid = false, processed_at = NULL, attempts = 0,
         last_attempt_at = NULL, error = NULL
   WHERE id = p_id;
  INSERT INTO private.crawl_requests (requested_by) SELECT 'retry of submission ' || p_id;
  PERFORM private.audit('retry_submission', p_id::text, jsonb_build_object('url', v_row.label_url));
END
$$;

-- Refuses a submission with a reason the submitter's queue shows.
CREATE OR REPLACE FUNCTION public.admin_reject_submission(p_id bigint, p_reason text) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_reason text := btrim(coalesce(p_reason, ''));
  v_row public.labels_to_add;
BEGIN
  PERFORM private.assert_admin();
  IF v_reason = '' OR length(v_reason) > 500 THEN
    RAISE EXCEPTION 'A reason of 1 to 500 characters is needed' USING ERRCODE = '22023';
  END IF;
  SELECT * INTO v_row FROM public.labels_to_add WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'No submission %', coalesce(p_id::text, 'null') USING ERRCODE = 'PT404';
  END IF;
  IF v_row.is_processed AND v_row.is_valid THEN
    RAISE EXCEPTION 'Submission % was added as a label already; hide the label instead', p_id
      USING ERRCODE = '22023';
  END IF;
  UPDATE public.labels_to_add
     SET is_processed = true, is_valid = false, processed_at = now(), error = v_reason
   WHERE id = p_id;
  PERFORM private.audit('reject_submission', p_id::text,
                        jsonb_build_object('url', v_row.label_url, 'reason', v_reason));
END
$$;

-- Recent crawl passes, newest first, with why a pass stopped early and what
-- it met: network failures (pages that could not be fetched) and parse
-- failures (pages that could not be read).
CREATE OR REPLACE FUNCTION public.admin_crawl_runs(p_limit integer DEFAULT 20)
RETURNS TABLE (id bigint, started_at timestamptz, finished_at timestamptz, status text, stop_reason text,
               labels_checked integer, labels_valid integer, labels_invalid integer, labels_retried integer,
               releases_added integer, releases_updated integer, network_failures integer,
               parse_failures integer, error text)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_admin();
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 200 THEN
    RAISE EXCEPTION 'p_limit must be between 1 and 200' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT r.id, r.started_at, r.finished_at, r.status, r.stop_reason, r.labels_checked, r.labels_valid,
           r.labels_invalid, r.labels_retried, r.releases_added, r.releases_updated, r.network_failures,
           r.parse_failures, r.error
      FROM private.ingest_runs r
     ORDER BY r.started_at DESC, r.id DESC
     LIMIT p_limit;
END
$$;

-- What the Crawls tab shows above the passes: the next planned pass, open
-- "crawl now" requests, and whether a pass is running.
CREATE OR REPLACE FUNCTION public.admin_crawl_status() RETURNS jsonb
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  PERFORM private.assert_admin();
  RETURN jsonb_build_object(
    'next_pass_at', (SELECT s.next_at FROM private.crawl_schedule s),
    'open_requests', (SELECT count(*) FROM private.crawl_requests c WHERE c.picked_up_at IS NULL),
    'running', EXISTS (SELECT 1 FROM private.ingest_runs r WHERE r.status = 'running'),
    'last_succeeded_at', (SELECT max(r.started_at) FROM private.ingest_runs r WHERE r.status = 'succeeded'));
END
$$;

-- Labels whose latest visit could not be parsed.
CREATE OR REPLACE FUNCTION public.admin_label_failures()
RETURNS TABLE (label_id bigint, label_name text, url text, reason text,
               first_seen_at timestamptz, last_seen_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_admin();
  RETURN QUERY
    SELECT f.label_id, l.label_name, f.url, f.reason, f.first_seen_at, f.last_seen_at
      FROM private.label_parse_failures f
      JOIN public.labels l ON l.id = f.label_id
     ORDER BY f.last_seen_at DESC, f.label_id;
END
$$;

-- Asks for a pass (p_label_id NULL) or for one label's refresh; the next
-- scheduler tick runs a pass, which crawls that label among the others.
-- Returns the request's id.
CREATE OR REPLACE FUNCTION public.admin_request_crawl(p_label_id bigint DEFAULT NULL) RETURNS bigint
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_id bigint;
  v_by text;
BEGIN
  PERFORM private.assert_admin();
  IF p_label_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM public.labels WHERE id = p_label_id) THEN
    RAISE EXCEPTION 'No label %', p_label_id USING ERRCODE = 'PT404';
  END IF;
  v_by := CASE current_setting('role')
            WHEN 'authenticated' THEN coalesce(auth.email(), auth.uid()::text)
            WHEN 'service_role' THEN 'service_role'
            ELSE 'owner:' || session_user END;
  INSERT INTO private.crawl_requests (label_id, requested_by) VALUES (p_label_id, v_by) RETURNING id INTO v_id;
  PERFORM private.audit('request_crawl', coalesce(p_label_id::text, 'all'), jsonb_build_object('request_id', v_id));
  RETURN v_id;
END
$$;

-- Every label, hidden ones included, for the Labels tab.
CREATE OR REPLACE FUNCTION public.admin_labels(p_search text DEFAULT NULL, p_limit integer DEFAULT 100)
RETURNS TABLE (id bigint, label_name text, label_url text, tags text[], hidden boolean,
               crawled_at timestamptz, parse_failure text, followers bigint)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(p_search);
BEGIN
  PERFORM private.assert_admin();
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 500 THEN
    RAISE EXCEPTION 'p_limit must be between 1 and 500' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT l.id, l.label_name, l.label_url, l.tags,
           EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = l.id),
           l.crawled_at,
           (SELECT f.reason FROM private.label_parse_failures f WHERE f.label_id = l.id),
           (SELECT count(*) FROM public.user_follow_labels f WHERE f.label_id = l.id)
      FROM public.labels l
     WHERE v_pattern IS NULL OR l.label_name ILIKE v_pattern OR l.label_url ILIKE v_pattern
     ORDER BY lower(l.label_name), l.id
     LIMIT p_limit;
END
$$;

CREATE OR REPLACE FUNCTION public.admin_set_label_hidden(p_label_id bigint, p_hidden boolean) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
BEGIN
  PERFORM private.assert_admin();
  IF p_hidden IS NULL THEN
    RAISE EXCEPTION 'p_hidden must be true or false' USING ERRCODE = '22023';
  END IF;
  IF NOT EXISTS (SELECT 1 FROM public.labels WHERE id = p_label_id) THEN
    RAISE EXCEPTION 'No label %', coalesce(p_label_id::text, 'null') USING ERRCODE = 'PT404';
  END IF;
  IF p_hidden THEN
    INSERT INTO private.hidden_labels (label_id, hidden_by)
    VALUES (p_label_id, CASE WHEN current_setting('role') = 'authenticated' THEN auth.uid() END)
    ON CONFLICT (label_id) DO NOTHING;
  ELSE
    DELETE FROM private.hidden_labels WHERE label_id = p_label_id;
  END IF;
  PERFORM private.audit(CASE WHEN p_hidden THEN 'hide_label' ELSE 'unhide_label' END, p_label_id::text);
END
$$;

-- Members: who joined when, with which invite, how many labels they
-- follow, whether they are banned or admins, and when they last signed in.
CREATE OR REPLACE FUNCTION public.admin_members(p_search text DEFAULT NULL)
RETURNS TABLE (id uuid, email text, joined_at timestamptz, invite_code text, invite_note text,
               follows bigint, banned boolean, banned_until timestamptz, is_admin boolean,
               last_sign_in_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_pattern text := private.contains_pattern(p_search);
BEGIN
  PERFORM private.assert_admin();
  RETURN QUERY
    SELECT u.id, u.email::text, u.created_at, i.code, i.note,
           (SELECT count(*) FROM public.user_follow_labels f WHERE f.user_id = u.id),
           coalesce(u.banned_until > now(), false), u.banned_until,
           coalesce(u.raw_app_meta_data ->> 'role' = 'admin', false), u.last_sign_in_at
      FROM auth.users u
      LEFT JOIN LATERAL (
        SELECT c.code, c.note FROM public.invite_redemptions r
          JOIN public.invite_codes c ON c.id = r.invite_id
         WHERE r.user_id = u.id ORDER BY r.redeemed_at LIMIT 1) i ON true
     WHERE u.deleted_at IS NULL
       AND (v_pattern IS NULL OR u.email ILIKE v_pattern)
     ORDER BY u.created_at DESC, u.id;
END
$$;

-- private.member_target finds the member an action is about, refusing an
-- admin's action on themselves (an admin cannot lock themselves out).
CREATE OR REPLACE FUNCTION private.member_target(p_user_id uuid, p_action text) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = ''
AS $$
DECLARE
  v_email text;
BEGIN
  SELECT u.email INTO v_email FROM auth.users u WHERE u.id = p_user_id AND u.deleted_at IS NULL;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'No member %', coalesce(p_user_id::text, 'null') USING ERRCODE = 'PT404';
  END IF;
  IF current_setting('role') = 'authenticated' AND p_user_id = auth.uid() THEN
    RAISE EXCEPTION 'Admins cannot % themselves', p_action USING ERRCODE = '22023';
  END IF;
  RETURN coalesce(v_email, p_user_id::text);
END
$$;

-- Ban or unban, as the admin users API's ban_duration does: a ban sets
-- banned_until (about 100 years, like `labelbase user ban`), which refuses
-- sign-in and token refresh; unban clears it.
CREATE OR REPLACE FUNCTION public.admin_set_banned(p_user_id uuid, p_banned boolean) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_email text;
BEGIN
  PERFORM private.assert_admin();
  IF p_banned IS NULL THEN
    RAISE EXCEPTION 'p_banned must be true or false' USING ERRCODE = '22023';
  END IF;
  v_email := private.member_target(p_user_id, 'ban');
  UPDATE auth.users
     SET banned_until = CASE WHEN p_banned THEN now() + interval '876000 hours' END, updated_at = now()
   WHERE id = p_user_id;
  PERFORM private.audit(CASE WHEN p_banned THEN 'ban' ELSE 'unban' END, v_email,
                        jsonb_build_object('user_id', p_user_id));
END
$$;

-- Makes a member an admin or takes it back, in app_metadata as the admin
-- users API would ({"app_metadata": {"role": "admin"}} / {"role": null}).
CREATE OR REPLACE FUNCTION public.admin_set_admin(p_user_id uuid, p_admin boolean) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_email text;
BEGIN
  PERFORM private.assert_admin();
  IF p_admin IS NULL THEN
    RAISE EXCEPTION 'p_admin must be true or false' USING ERRCODE = '22023';
  END IF;
  v_email := private.member_target(p_user_id, 'change the admin role of');
  UPDATE auth.users
     SET raw_app_meta_data = CASE WHEN p_admin THEN raw_app_meta_data || '{"role": "admin"}'
                                  ELSE raw_app_meta_data - 'role' END,
         updated_at = now()
   WHERE id = p_user_id;
  PERFORM private.audit(CASE WHEN p_admin THEN 'grant_admin' ELSE 'revoke_admin' END, v_email,
                        jsonb_build_object('user_id', p_user_id));
END
$$;

-- Invites through procedures rather than admin RLS on invite_codes: the
-- code is generated here (never chosen by a client), every change is
-- audited, and the table keeps no client grants at all.
CREATE OR REPLACE FUNCTION public.admin_invites()
RETURNS TABLE (id bigint, code text, max_uses integer, uses integer, expires_at timestamptz,
               revoked_at timestamptz, note text, created_at timestamptz, status text, used_by text[])
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_admin();
  RETURN QUERY
    SELECT c.id, c.code, c.max_uses, c.uses, c.expires_at, c.revoked_at, c.note, c.created_at,
           CASE WHEN c.revoked_at IS NOT NULL THEN 'revoked'
                WHEN c.expires_at IS NOT NULL AND c.expires_at <= now() THEN 'expired'
                WHEN c.uses >= c.max_uses THEN 'used'
                ELSE 'active' END,
           ARRAY(SELECT u.email::text FROM public.invite_redemptions r JOIN auth.users u ON u.id = r.user_id
                  WHERE r.invite_id = c.id ORDER BY r.redeemed_at)
      FROM public.invite_codes c
     ORDER BY c.created_at DESC, c.id DESC;
END
$$;

-- A code like pkg/invite's: six groups of four characters from an alphabet
-- without 0/o, 1/l/i, drawn from gen_random_uuid() (a strong random source
-- in core PostgreSQL, so no pgcrypto is needed). A byte modulo 31 is very
-- slightly uneven; 24 characters still carry about 118 bits.
CREATE OR REPLACE FUNCTION private.new_invite_code() RETURNS text
LANGUAGE plpgsql VOLATILE SET search_path = ''
AS $$
DECLARE
  v_alphabet constant text := '23456789abcdefghjkmnpqrstuvwxyz';
  v_bytes bytea := decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');
  v_code text := '';
BEGIN
  -- Bytes 6 and 8 of a v4 UUID carry its version and variant; skip them.
  FOR i IN 0..31 LOOP
    CONTINUE WHEN i % 16 IN (6, 8);
    EXIT WHEN length(v_code) >= 29;
    IF length(v_code) IN (4, 9, 14, 19, 24) THEN
      v_code := v_code || '-';
    END IF;
    v_code := v_code || substr(v_alphabet, get_byte(v_bytes, i) % 31 + 1, 1);
  END LOOP;
  RETURN v_code;
END
$$;

CREATE OR REPLACE FUNCTION public.admin_create_invite(
  p_max_uses integer DEFAULT 1, p_expires_in_hours integer DEFAULT NULL, p_note text DEFAULT ''
) RETURNS TABLE (id bigint, code text, max_uses integer, expires_at timestamptz, note text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
DECLARE
  v_note text := btrim(coalesce(p_note, ''));
BEGIN
  PERFORM private.assert_admin();
  IF p_max_uses IS NULL OR p_max_uses < 1 OR p_max_uses > 10000 THEN
    RAISE EXCEPTION 'p_max_uses must be between 1 and 10000' USING ERRCODE = '22023';
  END IF;
  IF p_expires_in_hours IS NOT NULL AND (p_expires_in_hours < 1 OR p_expires_in_hours > 87600) THEN
    RAISE EXCEPTION 'p_expires_in_hours must be between 1 and 87600' USING ERRCODE = '22023';
  END IF;
  IF length(v_note) > 200 THEN
    RAISE EXCEPTION 'The note may have at most 200 characters' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    WITH c AS (
      INSERT INTO public.invite_codes (code, max_uses, expires_at, note)
      VALUES (private.new_invite_code(), p_max_uses,
              now() + make_interval(hours => p_expires_in_hours), v_note)
      RETURNING id, code, max_uses, expires_at, note)
    SELECT c.id, c.code, c.max_uses, c.expires_at, c.note FROM c;
  PERFORM private.audit('create_invite', NULL,
                        jsonb_build_object('max_uses', p_max_uses, 'expires_in_hours', p_expires_in_hours,
                                           'note', v_note));
END
$$;

CREATE OR REPLACE FUNCTION public.admin_revoke_invite(p_id bigint) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = ''
AS $$
DECLARE
  v_code text;
BEGIN
  PERFORM private.assert_admin();
  UPDATE public.invite_codes SET revoked_at = coalesce(revoked_at, now()) WHERE id = p_id RETURNING code INTO v_code;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'No invite %', coalesce(p_id::text, 'null') USING ERRCODE = 'PT404';
  END IF;
  PERFORM private.audit('revoke_invite', p_id::text, jsonb_build_object('code_prefix', left(v_code, 4)));
END
$$;

-- The audit trail, newest first.
CREATE OR REPLACE FUNCTION public.admin_audit_log(p_limit integer DEFAULT 50)
RETURNS TABLE (id bigint, at timestamptz, actor text, action text, target text, detail jsonb)
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = ''
AS $$
#variable_conflict use_column
BEGIN
  PERFORM private.assert_admin();
  IF p_limit IS NULL OR p_limit < 1 OR p_limit > 500 THEN
    RAISE EXCEPTION 'p_limit must be between 1 and 500' USING ERRCODE = '22023';
  END IF;
  RETURN QUERY
    SELECT a.id, a.at, a.actor, a.action, a.target, a.detail
      FROM private.admin_audit a ORDER BY a.at DESC, a.id DESC LIMIT p_limit;
END
$$;

-- Signed-in callers reach the admin procedures, which refuse members with
-- 42501; anon cannot call them at all. The private helpers are not exposed
-- over the API (the API serves public only) and run as the owner inside the
-- procedures.
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure FROM pg_proc p
     WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'admin\_%'
  LOOP
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, anon', f);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated, service_role', f);
  END LOOP;
  FOR f IN
    SELECT p.oid::regprocedure FROM pg_proc p
     WHERE p.pronamespace = 'private'::regnamespace
       AND p.proname IN ('assert_admin', 'audit', 'member_target', 'new_invite_code')
  LOOP
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
  END LOOP;
END
$$;
