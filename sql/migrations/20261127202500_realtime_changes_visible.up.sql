-- postgres_changes: the RLS decision for one changed row and every
-- distinct (role, claims) group of its subscribers on a gateway, in one
-- statement (pkg/realtime/pgchanges). Supabase's Realtime reads the table
-- once per subscriber; this reads it once per group, all in one call.
--
-- The schema normally exists already (20261127202000 creates realtime with
-- messages, topic(), send()); IF NOT EXISTS keeps this migration
-- independent of that one.
CREATE SCHEMA IF NOT EXISTS realtime;

-- realtime.changes_visible returns the 1-based indexes of the groups
-- (roles[i], claims[i]) that may SELECT the row of tbl whose primary key
-- columns key_cols hold key_vals (text, cast to each column's type).
--
-- It is SECURITY INVOKER and granted to nobody: only the gateway's owner
-- connection calls it, and switching role is checked by PostgreSQL against
-- that session's user, and the gateway passes only the API roles (anon,
-- authenticated, service_role). Every setting it changes is transaction-local and
-- restored before it returns.
--
-- xid is the changed row's transaction (32 bits, as the WAL carries it).
-- Logical decoding can ship a commit a moment before the committing
-- session is out of the process array, when new snapshots do not see it
-- yet; the function first waits (up to about a second, in practice
-- microseconds) until a snapshot does, so that a fresh row is never
-- judged invisible. A group whose role lacks the privilege, or
-- whose policy raises, simply does not see the row.
CREATE FUNCTION realtime.changes_visible(tbl regclass, key_cols text[], key_vals text[], roles text[], claims text[],
                                         xid bigint, isolate boolean DEFAULT false)
RETURNS int[]
LANGUAGE plpgsql VOLATILE
SET search_path = ''
AS $$
DECLARE
  cond text := '';
  q text;
  i int;
  seen boolean;
  visible int[] := '{}';
  orig_role text := current_setting('role');
  orig_claims text := coalesce(current_setting('request.jwt.claims', true), '');
  term text;
  snap pg_catalog.pg_snapshot;
  xmax bigint;
  full_xid bigint;
  waits int := 0;
  stmt text;
  run text;
BEGIN
  IF coalesce(array_length(key_cols, 1), 0) = 0 OR array_length(key_cols, 1) <> array_length(key_vals, 1) THEN
    RAISE EXCEPTION 'changes_visible: key columns and values differ';
  END IF;
  FOR i IN 1 .. array_length(key_cols, 1) LOOP
    SELECT format('%I = ($1[%s])::%s', a.attname, i, format_type(a.atttypid, a.atttypmod))
      INTO term
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = tbl AND a.attname = key_cols[i] AND a.attnum > 0 AND NOT a.attisdropped;
    IF term IS NULL THEN
      RAISE EXCEPTION 'changes_visible: % has no column %', tbl, key_cols[i];
    END IF;
    cond := cond || CASE WHEN i > 1 THEN ' AND ' ELSE '' END || term;
  END LOOP;
  WHILE xid IS NOT NULL LOOP
    SELECT pg_catalog.pg_current_snapshot() INTO snap;
    xmax := pg_catalog.pg_snapshot_xmax(snap)::text::bigint;
    -- The full transaction id nearest xmax whose low 32 bits are xid.
    full_xid := xmax + ((xid - xmax % 4294967296 + 6442450944) % 4294967296 - 2147483648);
    EXIT WHEN full_xid < xmax AND NOT EXISTS (
      SELECT 1 FROM pg_catalog.pg_snapshot_xip(snap) x WHERE x::text::bigint = full_xid);
    waits := waits + 1;
    EXIT WHEN waits > 1000;
    PERFORM pg_catalog.pg_sleep(0.001);
  END LOOP;
  -- A policy is read, never written through: the check cannot change data.
  PERFORM pg_catalog.set_config('transaction_read_only', 'on', true);
  -- The probe is a session-level prepared statement named after its text,
  -- planned generically: consecutive groups of one role reuse one plan
  -- (auth.uid() and the like are evaluated at execution), and PostgreSQL
  -- replans by itself when the role, a policy or the table changes.
  q := format('SELECT EXISTS (SELECT 1 FROM %s WHERE %s)', tbl, cond);
  stmt := 'lb_realtime_' || md5(q);
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_prepared_statements p WHERE p.name = stmt) THEN
    EXECUTE format('PREPARE %I (text[]) AS %s', stmt, q);
  END IF;
  run := format('EXECUTE %I (%L)', stmt, key_vals);
  PERFORM pg_catalog.set_config('plan_cache_mode', 'force_generic_plan', true);
  FOR i IN 1 .. coalesce(array_length(roles, 1), 0) LOOP
    seen := false;
    IF NOT pg_catalog.has_table_privilege(roles[i], tbl, 'SELECT') THEN
      CONTINUE;
    ELSIF isolate THEN
      -- A subtransaction per group, so that a policy that raises for one
      -- group hides the row from that group only. It costs, so the
      -- gateway asks for it only after a call without it failed.
      BEGIN
        PERFORM pg_catalog.set_config('role', roles[i], true), pg_catalog.set_config('request.jwt.claims', claims[i], true);
        EXECUTE run INTO seen;
      EXCEPTION WHEN OTHERS THEN
        seen := false;
      END;
    ELSE
      -- The session user is what may switch roles, so no switch back is
      -- needed between groups.
      PERFORM pg_catalog.set_config('role', roles[i], true), pg_catalog.set_config('request.jwt.claims', claims[i], true);
      EXECUTE run INTO seen;
    END IF;
    IF seen THEN
      visible := visible || i;
    END IF;
  END LOOP;
  PERFORM pg_catalog.set_config('role', orig_role, true);
  PERFORM pg_catalog.set_config('request.jwt.claims', orig_claims, true);
  RETURN visible;
END
$$;

REVOKE ALL ON FUNCTION realtime.changes_visible(regclass, text[], text[], text[], text[], bigint, boolean) FROM PUBLIC;
