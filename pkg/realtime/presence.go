package realtime

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// tracked is what one channel has tracked: its key and meta (with phx_ref).
type tracked struct {
	key  string
	meta json.RawMessage
}

// presenceStore keeps presences in realtime.presences so every gateway can
// answer presence_state for the cluster, and diffs go over the bus.
type presenceStore struct{ s *Service }

// presenceEvent handles {type: "presence", event: "track"|"untrack",
// payload}. Tracking on a channel joined without presence turns it on and
// sends the state first, as Supabase does.
func (c *conn) presenceEvent(ctx context.Context, ch *channel, m Message) {
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	ch.mu.Lock()
	allowed := !ch.private || ch.pol.PresenceWrite
	enabled := ch.presence
	ch.mu.Unlock()
	if !allowed {
		c.replyError(m, "Unauthorized: You do not have permissions to track presence on this Channel topic: "+ch.sub)
		return
	}
	// Supabase's PresenceHandler lower-cases the event: "TRACK" tracks.
	switch strings.ToLower(p.Event) {
	case "track":
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(p.Payload, &meta); err != nil || meta == nil {
			c.replyError(m, "Presence track payload must be a map")
			return
		}
		if !enabled {
			ch.mu.Lock()
			ch.presence = true
			ch.mu.Unlock()
			c.s.presence.sendState(ctx, ch)
		}
		meta["phx_ref"], _ = json.Marshal(newRef())
		b, _ := json.Marshal(meta)
		if err := c.s.presence.track(ctx, ch, b); err != nil {
			c.s.log.WarnContext(ctx, "realtime: presence track failed", "err", err)
			c.reply(m, "error", json.RawMessage("{}"))
			return
		}
	case "untrack":
		c.s.presence.untrack(ctx, ch)
	default:
		c.replyError(m, "Presence event must be track or untrack")
		return
	}
	c.reply(m, "ok", json.RawMessage("{}"))
}

func diffPayload(joins, leaves *tracked) json.RawMessage {
	side := func(t *tracked) map[string]any {
		out := map[string]any{}
		if t != nil {
			out[t.key] = map[string]any{"metas": []json.RawMessage{t.meta}}
		}
		return out
	}
	b, _ := json.Marshal(map[string]any{"joins": side(joins), "leaves": side(leaves)})
	return b
}

func (ps *presenceStore) track(ctx context.Context, ch *channel, meta json.RawMessage) error {
	s := ps.s
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	_, err := s.pool.Exec(ctx, `INSERT INTO realtime.presences (gateway_id, channel_id, topic, private, key, meta)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (gateway_id, channel_id) DO UPDATE SET key = excluded.key, meta = excluded.meta`,
		s.gatewayID, ch.id, ch.sub, ch.private, ch.key, meta)
	if err != nil {
		return err
	}
	now := &tracked{key: ch.key, meta: meta}
	ch.mu.Lock()
	prev := ch.tracked
	ch.tracked = now
	ch.mu.Unlock()
	return s.publish(ctx, envelope{Kind: "presence_diff", Topic: ch.sub, Private: ch.private, Payload: diffPayload(now, prev)})
}

// untrack withdraws ch's presence, if any, and tells the cluster.
func (ps *presenceStore) untrack(ctx context.Context, ch *channel) {
	ch.mu.Lock()
	prev := ch.tracked
	ch.tracked = nil
	ch.mu.Unlock()
	if prev == nil {
		return
	}
	s := ps.s
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "DELETE FROM realtime.presences WHERE gateway_id = $1 AND channel_id = $2", s.gatewayID, ch.id); err != nil {
		s.log.WarnContext(ctx, "realtime: presence untrack failed; the sweep will remove it", "err", err)
	}
	if err := s.publish(ctx, envelope{Kind: "presence_diff", Topic: ch.sub, Private: ch.private, Payload: diffPayload(nil, prev)}); err != nil {
		s.log.WarnContext(ctx, "realtime: presence leave not sent", "err", err)
	}
}

// sendState pushes presence_state: every presence tracked on the topic,
// on any gateway. Diffs that raced with it are buffered by the client
// until the state arrives and then applied, duplicates ignored.
func (ps *presenceStore) sendState(ctx context.Context, ch *channel) {
	s := ps.s
	if ch.private {
		ch.mu.Lock()
		read := ch.pol.PresenceRead
		ch.mu.Unlock()
		if !read {
			return
		}
	}
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	rows, err := s.pool.Query(ctx, "SELECT key, meta FROM realtime.presences WHERE topic = $1 AND private = $2", ch.sub, ch.private)
	state := map[string]map[string][]json.RawMessage{}
	if err == nil {
		var key string
		var meta json.RawMessage
		_, err = pgx.ForEachRow(rows, []any{&key, &meta}, func() error {
			e := state[key]
			if e == nil {
				e = map[string][]json.RawMessage{"metas": nil}
				state[key] = e
			}
			e["metas"] = append(e["metas"], append(json.RawMessage(nil), meta...))
			return nil
		})
	}
	if err != nil {
		s.log.WarnContext(ctx, "realtime: presence state not read", "err", err)
	}
	b, _ := json.Marshal(state)
	ch.c.push(Message{Topic: ch.topic, Event: "presence_state", Payload: b})
}

// run beats this gateway's liveness and sweeps dead gateways' presences.
func (ps *presenceStore) run(ctx context.Context) {
	s := ps.s
	tick := time.NewTicker(s.cfg.PresenceHeartbeat)
	defer tick.Stop()
	for {
		if err := ps.beat(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("realtime: presence heartbeat failed", "err", err)
		}
		select {
		case <-ctx.Done():
			ps.withdraw()
			return
		case <-tick.C:
		}
	}
}

// beat marks this gateway alive, then removes, once across the cluster
// (DELETE … RETURNING hands each row to one gateway), the presences of
// gateways silent past the timeout, and sends their leaves.
func (ps *presenceStore) beat(ctx context.Context) error {
	s := ps.s
	if _, err := s.pool.Exec(ctx, `INSERT INTO realtime.gateways (id) VALUES ($1)
ON CONFLICT (id) DO UPDATE SET seen_at = now()`, s.gatewayID); err != nil {
		return err
	}
	rows, err := s.pool.Query(ctx, `DELETE FROM realtime.presences p WHERE NOT EXISTS (
  SELECT 1 FROM realtime.gateways g WHERE g.id = p.gateway_id AND g.seen_at > now() - make_interval(secs => $1))
RETURNING topic, private, key, meta`, s.cfg.PresenceTimeout.Seconds())
	if err != nil {
		return err
	}
	type gone struct {
		Topic   string
		Private bool
		Key     string
		Meta    json.RawMessage
	}
	dead, err := pgx.CollectRows(rows, pgx.RowToStructByPos[gone])
	if err != nil {
		return err
	}
	leaves := map[topicKey]map[string]map[string][]json.RawMessage{}
	for _, d := range dead {
		k := topicKey{d.Topic, d.Private}
		if leaves[k] == nil {
			leaves[k] = map[string]map[string][]json.RawMessage{}
		}
		if leaves[k][d.Key] == nil {
			leaves[k][d.Key] = map[string][]json.RawMessage{}
		}
		leaves[k][d.Key]["metas"] = append(leaves[k][d.Key]["metas"], d.Meta)
	}
	for k, l := range leaves {
		b, _ := json.Marshal(map[string]any{"joins": map[string]any{}, "leaves": l})
		if err := s.publish(ctx, envelope{Kind: "presence_diff", Topic: k.topic, Private: k.private, Payload: b}); err != nil {
			return err
		}
	}
	_, err = s.pool.Exec(ctx, "DELETE FROM realtime.gateways WHERE seen_at < now() - make_interval(secs => $1)",
		10*s.cfg.PresenceTimeout.Seconds())
	return err
}

// withdraw removes this gateway at shutdown; its sockets' presences are
// removed as they close (Close), and the sweep catches any left.
func (ps *presenceStore) withdraw() {
	s := ps.s
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.pool.Exec(ctx, "UPDATE realtime.gateways SET seen_at = '-infinity' WHERE id = $1", s.gatewayID); err != nil {
		s.log.Warn("realtime: withdrawing the gateway failed", "err", err)
	}
}
