-- Platform layer: the realtime schema as Supabase provides it, plus the
-- few internal tables Labelbase's gateways share.
--
-- What apps use (Supabase's names and signatures):
--   realtime.messages   RLS policies on it authorise private channels:
--                       SELECT = may receive, INSERT = may send; the gateway
--                       probes them at join and never keeps a row.
--   realtime.topic()    the channel's topic inside those policies.
--   realtime.send()     broadcast from SQL, delivered after commit.
--   realtime.broadcast_changes()  the trigger helper built on send().
--   publication supabase_realtime  created empty; postgres_changes
--                       streams the tables added to it.
CREATE SCHEMA IF NOT EXISTS realtime;
GRANT USAGE ON SCHEMA realtime TO anon, authenticated, service_role;

CREATE TABLE realtime.messages (
  topic       text NOT NULL,
  extension   text NOT NULL,
  payload     jsonb,
  event       text,
  private     boolean DEFAULT false,
  updated_at  timestamp without time zone NOT NULL DEFAULT now(),
  inserted_at timestamp without time zone NOT NULL DEFAULT now(),
  id          uuid NOT NULL DEFAULT gen_random_uuid(),
  PRIMARY KEY (id, inserted_at)
);
ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE ON realtime.messages TO anon, authenticated, service_role;

-- The topic of the channel being authorised, for policies on
-- realtime.messages (e.g. USING (realtime.topic() = 'room:' || auth.uid())).
CREATE FUNCTION realtime.topic() RETURNS text
  LANGUAGE sql STABLE
  AS $$ SELECT nullif(current_setting('realtime.topic', true), '')::text $$;

-- Labelbase internals, shared by every gateway on the database. UNLOGGED:
-- nothing in them must survive a crash of the server.
--
-- bus_payloads holds cross-gateway messages too large for NOTIFY (8,000
-- bytes); the notification carries '@' and the row's id. Gateways delete
-- rows older than a minute.
CREATE UNLOGGED TABLE realtime.bus_payloads (
  id         bigserial PRIMARY KEY,
  payload    bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- gateways: one row per running gateway, refreshed every second; a
-- gateway silent for a few seconds is dead and its presences leave.
CREATE UNLOGGED TABLE realtime.gateways (
  id      uuid PRIMARY KEY,
  seen_at timestamptz NOT NULL DEFAULT now()
);
-- presences: who is tracked on which channel, per gateway and channel
-- join, so a gateway can answer presence_state for the whole cluster.
CREATE UNLOGGED TABLE realtime.presences (
  gateway_id  uuid NOT NULL,
  channel_id  text NOT NULL,
  topic       text NOT NULL,
  private     boolean NOT NULL,
  key         text NOT NULL,
  meta        jsonb NOT NULL,
  PRIMARY KEY (gateway_id, channel_id)
);
CREATE INDEX presences_topic ON realtime.presences (topic, private);
REVOKE ALL ON realtime.bus_payloads, realtime.gateways, realtime.presences FROM PUBLIC;

-- realtime.send broadcasts payload as event on topic once the calling
-- transaction commits (NOTIFY semantics: after commit, in commit order,
-- to the gateways listening then). The envelope is the gateways' bus
-- format (pkg/realtime/hub.go). Sending skips the INSERT policies, so only
-- the owner and service_role may call it, and code running as a client's
-- role reaches it through a SECURITY DEFINER function, as Supabase's docs
-- write the trigger that calls realtime.broadcast_changes. (It is SECURITY
-- DEFINER itself only to write the internal realtime.bus_payloads.) Who
-- may *receive* a private message is decided by the SELECT policies.
CREATE FUNCTION realtime.send(payload jsonb, event text, topic text, private boolean DEFAULT true) RETURNS void
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, pg_temp
  AS $$
DECLARE
  envelope text;
  big_id bigint;
BEGIN
  IF topic IS NULL OR topic = '' OR event IS NULL THEN
    RAISE EXCEPTION 'realtime.send: topic and event are required';
  END IF;
  envelope := jsonb_build_object('kind', 'broadcast', 'topic', topic, 'private', coalesce(private, true),
    'event', event, 'payload', coalesce(payload, '{}'::jsonb), 'origin', 'db')::text;
  IF octet_length(envelope) > 7500 THEN
    INSERT INTO realtime.bus_payloads (payload) VALUES (convert_to(envelope, 'UTF8')) RETURNING id INTO big_id;
    PERFORM pg_notify('realtime_broadcast', '@' || big_id);
  ELSE
    PERFORM pg_notify('realtime_broadcast', envelope);
  END IF;
END
$$;

-- realtime.broadcast_changes sends a row change from a row-level trigger,
-- with the payload shape Supabase's helper has.
CREATE FUNCTION realtime.broadcast_changes(topic_name text, event_name text, operation text, table_name text,
    table_schema text, new record, old record, level text DEFAULT 'ROW') RETURNS void
  LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp
  AS $$
BEGIN
  IF level = 'STATEMENT' THEN
    RAISE EXCEPTION 'function can only be triggered for each row, not for each statement';
  END IF;
  IF operation NOT IN ('INSERT', 'UPDATE', 'DELETE') THEN
    RAISE EXCEPTION 'Unexpected operation type: %', operation;
  END IF;
  PERFORM realtime.send(jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
    'table', table_name, 'schema', table_schema), event_name, topic_name);
END
$$;

REVOKE ALL ON FUNCTION realtime.send(jsonb, text, text, boolean) FROM PUBLIC;
REVOKE ALL ON FUNCTION realtime.broadcast_changes(text, text, text, text, text, record, record, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION realtime.topic() TO anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION realtime.send(jsonb, text, text, boolean) TO service_role;
GRANT EXECUTE ON FUNCTION realtime.broadcast_changes(text, text, text, text, text, record, record, text) TO service_role;

-- The publication postgres_changes reads, empty as on a new Supabase
-- project: `ALTER PUBLICATION supabase_realtime ADD TABLE …` opts a table in.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
    CREATE PUBLICATION supabase_realtime;
  END IF;
END
$$;
