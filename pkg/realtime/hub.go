package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"
	"unicode/utf8"
)

// envelope is what travels on the bus between gateways; realtime.send in
// SQL writes the same shape (sql/migrations/20261127202000_platform_realtime.up.sql).
type envelope struct {
	// Kind is "broadcast" or "presence_diff".
	Kind string `json:"kind"`
	// Topic is the channel name without "realtime:".
	Topic   string `json:"topic"`
	Private bool   `json:"private"`
	Event   string `json:"event,omitempty"`
	// Payload is the user's JSON payload (broadcast) or {joins, leaves}.
	Payload json.RawMessage `json:"payload,omitempty"`
	// Binary is a broadcast's payload when it is bytes.
	Binary []byte `json:"binary,omitempty"`
	// Origin is the sending channel's id, so broadcast.self=false can skip
	// it; empty for HTTP and SQL.
	Origin string `json:"origin,omitempty"`
}

type topicKey struct {
	topic   string
	private bool
}

// hub is this gateway's index of joined channels by topic. It keeps the
// bus subscribed while it holds any channel, and only then: every insert
// into a table whose trigger calls realtime.send notifies the bus (the
// admin queue's live view makes every member's submission one), and a
// gateway that always listened paid a read and a dispatch per insert (a
// fifth of its CPU on inserts) for messages nobody on it could receive.
type hub struct {
	mu     sync.RWMutex
	topics map[topicKey]map[*channel]struct{}
	bus    Bus
	onBus  func([]byte)
	stop   func() // ends the bus subscription; nil while topics is empty
}

func newHub(bus Bus, onBus func([]byte)) *hub {
	return &hub{topics: map[topicKey]map[*channel]struct{}{}, bus: bus, onBus: onBus}
}

// add indexes ch. The first channel subscribes the bus; the result is
// closed once the bus listens, which a join waits for (see
// Service.awaitBus) so that what its client causes next reaches it.
func (h *hub) add(ch *channel) <-chan struct{} {
	k := topicKey{ch.sub, ch.private}
	h.mu.Lock()
	if h.stop == nil {
		h.stop = h.bus.Subscribe(busChannel, h.onBus)
	}
	set := h.topics[k]
	if set == nil {
		set = map[*channel]struct{}{}
		h.topics[k] = set
	}
	set[ch] = struct{}{}
	h.mu.Unlock()
	return h.bus.Listening(busChannel)
}

// remove forgets ch; the last channel ends the bus subscription (the bus
// UNLISTENs at its next round, so a join soon after finds it listening).
func (h *hub) remove(ch *channel) {
	k := topicKey{ch.sub, ch.private}
	h.mu.Lock()
	if set := h.topics[k]; set != nil {
		delete(set, ch)
		if len(set) == 0 {
			delete(h.topics, k)
		}
	}
	if len(h.topics) == 0 {
		h.unsubscribe()
	}
	h.mu.Unlock()
}

// close ends the bus subscription whatever is joined (the service is
// closing).
func (h *hub) close() {
	h.mu.Lock()
	h.unsubscribe()
	h.mu.Unlock()
}

// unsubscribe ends the bus subscription; h.mu is held.
func (h *hub) unsubscribe() {
	if h.stop != nil {
		h.stop()
		h.stop = nil
	}
}

// listenWait bounds how long a join waits for the bus to listen. A bus
// that is reconnecting does not hold joins up: they are answered, and
// miss what is sent until it is back, as they would have before.
const listenWait = 5 * time.Second

// awaitBus waits until listening (hub.add's answer) is closed, so that a
// client that joins and then writes a row whose trigger broadcasts
// receives that broadcast.
func (s *Service) awaitBus(ctx context.Context, listening <-chan struct{}) {
	wait, cancel := context.WithTimeout(ctx, listenWait)
	defer cancel()
	select {
	case <-listening:
	case <-wait.Done():
		if ctx.Err() == nil { // not the socket closing meanwhile
			s.log.Warn("realtime: joined before the bus listened", "waited", listenWait)
		}
	}
}

func (h *hub) members(k topicKey) []*channel {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*channel, 0, len(h.topics[k]))
	for ch := range h.topics[k] {
		out = append(out, ch)
	}
	return out
}

// has reports whether a channel on this gateway is joined to topic,
// public or private.
func (h *hub) has(topic string) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.topics[topicKey{topic, false}]) > 0 || len(h.topics[topicKey{topic, true}]) > 0
}

// peekTopic reads an envelope's topic without decoding what follows it.
// Both writers put it before the payload (realtime.send's jsonb orders
// keys by length; json.Marshal follows the struct), so a broadcast nobody
// on this gateway listens to costs a few bytes' scan, not the decoding of
// its payload. ok is false, and the envelope is decoded whole, unless the
// topic is a string that comes before any value that is an object or an
// array. encoding/json has no cheap way to stop early: its Decoder.Token
// cost as much as decoding the whole envelope in a profile of inserts
// whose trigger broadcasts, so the leading members are read here.
func peekTopic(p []byte) (topic string, ok bool) {
	i := skipSpace(p, 0)
	if i >= len(p) || p[i] != '{' {
		return "", false
	}
	for {
		i = skipSpace(p, i+1)
		end, ok := stringEnd(p, i)
		if !ok {
			return "", false
		}
		isTopic := string(p[i:end]) == `"topic"`
		i = skipSpace(p, end)
		if i >= len(p) || p[i] != ':' {
			return "", false
		}
		i = skipSpace(p, i+1)
		if i >= len(p) {
			return "", false
		}
		switch p[i] {
		case '"':
			end, ok := stringEnd(p, i)
			if !ok {
				return "", false
			}
			if isTopic {
				raw := p[i+1 : end-1]
				if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
					return string(raw), true
				}
				if err := json.Unmarshal(p[i:end], &topic); err != nil {
					return "", false
				}
				return topic, true
			}
			i = end
		case '{', '[':
			return "", false
		default: // a number, true, false or null
			if isTopic {
				return "", false
			}
			for i < len(p) && p[i] != ',' && p[i] != '}' {
				i++
			}
		}
		i = skipSpace(p, i)
		if i >= len(p) || p[i] != ',' {
			return "", false
		}
	}
}

func skipSpace(p []byte, i int) int {
	for i < len(p) && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index after the JSON string that starts at p[i].
func stringEnd(p []byte, i int) (int, bool) {
	if i >= len(p) || p[i] != '"' {
		return 0, false
	}
	for j := i + 1; j < len(p); j++ {
		switch p[j] {
		case '\\':
			j++ // the escaped character
		case '"':
			return j + 1, true
		}
	}
	return 0, false
}

// publish sends env to every gateway, this one included.
func (s *Service) publish(ctx context.Context, env envelope) error {
	b, err := json.Marshal(env)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	return s.bus.Publish(ctx, busChannel, b)
}

// onBus delivers one envelope to this gateway's channels on its topic. The
// frame is encoded once per serializer, not once per socket; broadcasts
// carry no join_ref, as Supabase's fast lane sends them.
func (s *Service) onBus(payload []byte) {
	if topic, ok := peekTopic(payload); ok && topic != "" && !s.hub.has(topic) {
		return // nobody here listens: the payload is not decoded
	}
	var env envelope
	if err := json.Unmarshal(payload, &env); err != nil || env.Topic == "" {
		s.log.Warn("realtime: undecodable bus message dropped", "err", err)
		return
	}
	members := s.hub.members(topicKey{env.Topic, env.Private})
	if len(members) == 0 {
		return
	}
	msg := Message{Topic: "realtime:" + env.Topic}
	switch env.Kind {
	case "broadcast":
		msg.Event = "broadcast"
		if env.Binary != nil {
			msg.Bin = &BinaryPayload{Event: env.Event, Data: env.Binary}
		} else {
			user := payloadOrEmpty(env.Payload)
			msg.Bin = &BinaryPayload{Event: env.Event, Data: user, JSON: true}
			msg.Payload, _ = json.Marshal(struct {
				Type    string          `json:"type"`
				Event   string          `json:"event"`
				Payload json.RawMessage `json:"payload"`
			}{"broadcast", env.Event, user})
		}
	case "presence_diff":
		msg.Event = "presence_diff"
		msg.Payload = env.Payload
	default:
		return
	}
	frames := map[string]*Frame{}
	for _, ch := range members {
		if !ch.wants(env) {
			continue
		}
		vsn := ch.c.vsn
		f, seen := frames[vsn]
		if !seen {
			if enc, ok := Encode(vsn, msg); ok {
				f = &enc
			}
			frames[vsn] = f
		}
		if f != nil {
			ch.c.send(*f)
		}
	}
}
