package realtime

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"strings"
)

// Subscription is one postgres_changes binding of one joined channel. It
// has exactly the fields of pgchanges.Subscription, so one converts to the
// other (pgchanges.Subscription(sub)).
type Subscription struct {
	ID     int    // the binding id returned to realtime-js in the join reply
	Event  string // "INSERT", "UPDATE", "DELETE" or "*"
	Schema string
	Table  string
	Filter string // realtime-js filter string, e.g. "id=eq.5"; "" for none
	Role   string // database role from the token
	Claims []byte // the token's claims JSON, as request.jwt.claims
}

// Deliver receives a change for binding ids: data is payload.data of a
// "postgres_changes" event. Same underlying type as pgchanges.Deliver.
type Deliver func(ids []int, data []byte)

// ChangeSource serves postgres_changes (pgchanges.Service, through an
// adapter that converts Subscription and Deliver).
type ChangeSource interface {
	// Ready is nil when changes can be streamed; else the reason (e.g.
	// wal_level is not logical), sent as the join error.
	Ready(ctx context.Context) error
	// Check validates one binding at join; its error text is told to the
	// client in a system message.
	Check(ctx context.Context, sub Subscription) error
	// Subscribe starts delivering; one call per joined channel.
	Subscribe(subs []Subscription, deliver Deliver) (cancel func())
}

// changeBinding is a channel's postgres_changes request.
type changeBinding struct {
	params []map[string]any // as the client sent them, each with its id
	subs   []Subscription   // the ones Check accepted
	errs   []string         // why the others will never deliver
	cancel func()
}

// reply is the join reply's postgres_changes list: the client's bindings
// in order, each with the id its events will carry.
func (b *changeBinding) reply() []map[string]any {
	if b == nil {
		return []map[string]any{}
	}
	return b.params
}

// bindingID is stable for the same parameters, like Supabase's
// :erlang.phash2(params), and fits realtime-js's number comparison.
func bindingID(event, schema, table, filter string) int {
	h := fnv.New32a()
	for _, s := range []string{event, schema, table, filter} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return int(h.Sum32() & (1<<27 - 1))
}

// prepareChanges validates config.postgres_changes at join. A reason is
// returned when postgres_changes cannot run at all; a binding that can
// never deliver is kept and reported after the reply.
func (s *Service) prepareChanges(ctx context.Context, ch *channel, raw []json.RawMessage) (*changeBinding, string) {
	if len(raw) == 0 {
		return nil, ""
	}
	if s.changes == nil {
		return nil, "RealtimeDisabledForConfiguration: postgres_changes is not available"
	}
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	if err := s.changes.Ready(ctx); err != nil {
		// Ready's errors are written for clients and say what is missing
		// (pgchanges: "postgres_changes is not available: the database
		// runs with wal_level=replica and needs wal_level=logical …").
		return nil, "RealtimeDisabledForConfiguration: " + err.Error()
	}
	b := &changeBinding{}
	for _, r := range raw {
		var p map[string]any
		if err := json.Unmarshal(r, &p); err != nil || p == nil {
			p = map[string]any{}
		}
		event, _ := p["event"].(string)
		schema, _ := p["schema"].(string)
		table, _ := p["table"].(string)
		filter, _ := p["filter"].(string)
		id := bindingID(event, schema, table, filter)
		p["id"] = id
		b.params = append(b.params, p)
		sub := Subscription{ID: id, Event: strings.ToUpper(event), Schema: schema, Table: table, Filter: filter,
			Role: ch.auth.role, Claims: ch.auth.claims}
		if reason := validateBinding(sub); reason != "" {
			b.errs = append(b.errs, reason)
			continue
		}
		if err := s.changes.Check(ctx, sub); err != nil {
			b.errs = append(b.errs, err.Error())
			continue
		}
		b.subs = append(b.subs, sub)
	}
	return b, ""
}

func validateBinding(sub Subscription) string {
	switch sub.Event {
	case "*", "INSERT", "UPDATE", "DELETE":
	default:
		return "Invalid postgres_changes event " + quote(sub.Event) + ": use *, INSERT, UPDATE or DELETE"
	}
	if sub.Schema == "" {
		return "A postgres_changes binding needs a schema"
	}
	return ""
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// startChanges reports each binding that can never deliver, subscribes
// the others and says so, as Supabase's "Subscribed to PostgreSQL".
func (s *Service) startChanges(ctx context.Context, ch *channel, b *changeBinding) {
	if b == nil {
		return
	}
	for _, e := range b.errs {
		ch.c.push(systemMessage(ch, "postgres_changes", "error", e))
	}
	if len(b.subs) == 0 {
		return
	}
	ch.mu.Lock()
	ch.changes = b
	ch.mu.Unlock()
	s.resubscribeChanges(ch)
	ch.c.push(systemMessage(ch, "postgres_changes", "ok", "Subscribed to PostgreSQL"))
}

// resubscribeChanges (re)starts delivery with the channel's current
// claims; access_token calls it after a token change.
func (s *Service) resubscribeChanges(ch *channel) {
	ch.mu.Lock()
	b := ch.changes
	if b == nil {
		ch.mu.Unlock()
		return
	}
	old := b.cancel
	subs := make([]Subscription, len(b.subs))
	for i, sub := range b.subs {
		sub.Role, sub.Claims = ch.auth.role, ch.auth.claims
		subs[i] = sub
	}
	ch.mu.Unlock()
	if old != nil {
		old()
	}
	cancel := s.changes.Subscribe(subs, func(ids []int, data []byte) {
		p, _ := json.Marshal(struct {
			IDs  []int           `json:"ids"`
			Data json.RawMessage `json:"data"`
		}{ids, data})
		ch.c.push(Message{Topic: ch.topic, Event: "postgres_changes", Payload: p})
	})
	ch.mu.Lock()
	if ch.changes == b {
		b.cancel = cancel
		ch.mu.Unlock()
		return
	}
	ch.mu.Unlock()
	cancel() // the channel left meanwhile
}

func systemMessage(ch *channel, extension, status, message string) Message {
	b, _ := json.Marshal(map[string]string{"extension": extension, "status": status, "message": message, "channel": ch.sub})
	return Message{Topic: ch.topic, Event: "system", Payload: b}
}
