package realtime

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"
)

// channel is one joined topic on one socket.
type channel struct {
	c       *conn
	id      string // origin id on the bus: socket id and join_ref
	topic   string // "realtime:<sub>"
	sub     string
	joinRef *string
	private bool
	self    bool
	ack     bool
	key     string // presence key

	// mu guards what access_token and the bus goroutine share.
	mu       sync.Mutex
	auth     *caller
	pol      policies
	presence bool // presence enabled
	timer    *time.Timer
	tracked  *tracked
	changes  *changeBinding
}

// joinPayload is phx_join's payload as realtime-js sends it. A payload
// that does not parse joins with the defaults, as on Supabase.
type joinPayload struct {
	Config struct {
		Broadcast struct {
			Ack  bool `json:"ack"`
			Self bool `json:"self"`
		} `json:"broadcast"`
		Presence struct {
			Enabled bool   `json:"enabled"`
			Key     string `json:"key"`
		} `json:"presence"`
		PostgresChanges []json.RawMessage `json:"postgres_changes"`
		Private         bool              `json:"private"`
	} `json:"config"`
	AccessToken string `json:"access_token"`
	UserToken   string `json:"user_token"`
}

// wants says whether env is for this channel's client.
func (ch *channel) wants(env envelope) bool {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	switch env.Kind {
	case "broadcast":
		if !ch.self && env.Origin == ch.id {
			return false
		}
		return !ch.private || ch.pol.BroadcastRead
	case "presence_diff":
		return ch.presence && (!ch.private || ch.pol.PresenceRead)
	}
	return false
}

// join handles phx_join: the checks in Supabase's order, then the reply,
// then presence_state and the postgres_changes system messages.
func (c *conn) join(ctx context.Context, m Message) {
	sub, ok := strings.CutPrefix(m.Topic, "realtime:")
	switch {
	case !ok:
		c.replyError(m, "unmatched topic")
		return
	case sub == "":
		c.replyError(m, "TopicNameRequired: You must provide a topic name")
		return
	}
	if old := c.channel(m.Topic); old != nil {
		// A second join of a topic replaces the first, as in Phoenix.
		c.closeChannel(ctx, old, "")
	}
	c.mu.Lock()
	n := len(c.channels)
	c.mu.Unlock()
	if n >= c.s.cfg.MaxChannelsPerConnection {
		c.replyError(m, "ChannelRateLimitReached: Too many channels")
		return
	}
	if !c.joins.allow(c.s.cfg.MaxJoinsPerSecond, time.Now()) {
		c.replyError(m, "ClientJoinRateLimitReached: Too many joins per second")
		return
	}
	var p joinPayload
	_ = json.Unmarshal(m.Payload, &p)
	tok := p.AccessToken
	if tok == "" {
		tok = p.UserToken
	}
	auth, reason := c.s.authenticate(tok, c.apikey)
	if reason != "" {
		c.replyError(m, reason)
		return
	}
	ch := &channel{c: c, id: c.id + ":" + deref(m.JoinRef), topic: m.Topic, sub: sub, joinRef: m.JoinRef,
		private: p.Config.Private, self: p.Config.Broadcast.Self, ack: p.Config.Broadcast.Ack,
		key: p.Config.Presence.Key, auth: auth, presence: p.Config.Presence.Enabled}
	if ch.key == "" {
		ch.key = newUUID()
	}
	if ch.private {
		pol, reason := c.s.authorize(ctx, sub, auth)
		if reason != "" {
			c.replyError(m, reason)
			return
		}
		if !pol.BroadcastRead && !pol.PresenceRead {
			c.replyError(m, "Unauthorized: You do not have permissions to read from this Channel topic: "+sub)
			return
		}
		ch.pol = pol
	}
	binding, reason := c.s.prepareChanges(ctx, ch, p.Config.PostgresChanges)
	if reason != "" {
		c.replyError(m, reason)
		return
	}
	c.mu.Lock()
	c.channels[m.Topic] = ch
	c.mu.Unlock()
	c.s.awaitBus(ctx, c.s.hub.add(ch))
	resp, _ := json.Marshal(map[string]any{"postgres_changes": binding.reply()})
	c.reply(m, "ok", resp)
	ch.armExpiry()
	if ch.presence {
		c.s.presence.sendState(ctx, ch)
	}
	c.s.startChanges(ctx, ch, binding)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// armExpiry ends the channel when its token expires, as Supabase's
// confirm_token timer does.
func (ch *channel) armExpiry() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.timer != nil {
		ch.timer.Stop()
		ch.timer = nil
	}
	if ch.auth.expires.IsZero() {
		return
	}
	ch.timer = time.AfterFunc(time.Until(ch.auth.expires), func() {
		ch.c.shutdown(context.Background(), ch, "Token has expired")
	})
}

// shutdown ends a channel from the server side: a system message saying
// why, then phx_close, as Supabase's shutdown_response.
func (c *conn) shutdown(ctx context.Context, ch *channel, message string) {
	c.closeChannel(ctx, ch, message)
}

func (c *conn) closeChannel(ctx context.Context, ch *channel, message string) {
	if !c.remove(ctx, ch) {
		return
	}
	if message != "" {
		c.push(systemMessage(ch, "system", "error", message))
	}
	c.push(closeMessage(ch))
}

// closeMessage is phx_close for ch, under its join's refs.
func closeMessage(ch *channel) Message {
	return Message{JoinRef: ch.joinRef, Ref: ch.joinRef, Topic: ch.topic, Event: "phx_close", Payload: json.RawMessage("{}")}
}

// remove forgets ch: hub, presence, postgres_changes, timer. It reports
// whether ch was still joined.
func (c *conn) remove(ctx context.Context, ch *channel) bool {
	c.mu.Lock()
	if c.channels[ch.topic] != ch {
		c.mu.Unlock()
		return false
	}
	delete(c.channels, ch.topic)
	c.mu.Unlock()
	c.s.hub.remove(ch)
	ch.mu.Lock()
	if ch.timer != nil {
		ch.timer.Stop()
	}
	cb := ch.changes
	ch.changes = nil
	ch.mu.Unlock()
	if cb != nil && cb.cancel != nil {
		cb.cancel()
	}
	c.s.presence.untrack(ctx, ch)
	return true
}

// accessToken re-checks a joined channel with a new token: an invalid or
// expired one, or one that may no longer read a private topic, ends the
// channel; a good one replaces the old for authorisation, expiry and
// postgres_changes.
func (c *conn) accessToken(ctx context.Context, ch *channel, m Message) {
	var p struct {
		AccessToken *string `json:"access_token"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	if p.AccessToken == nil || *p.AccessToken == "" || strings.HasPrefix(*p.AccessToken, "sb_") {
		return
	}
	ch.mu.Lock()
	same := ch.auth.raw == *p.AccessToken
	ch.mu.Unlock()
	if same {
		return
	}
	auth, reason := c.s.authenticate(*p.AccessToken, c.apikey)
	if reason != "" {
		c.shutdown(ctx, ch, reason)
		return
	}
	var pol policies
	if ch.private {
		pol, reason = c.s.authorize(ctx, ch.sub, auth)
		if reason != "" {
			c.shutdown(ctx, ch, reason)
			return
		}
		ch.mu.Lock()
		old := ch.pol
		ch.mu.Unlock()
		if (old.BroadcastRead && !pol.BroadcastRead) || (old.PresenceRead && !pol.PresenceRead) {
			c.shutdown(ctx, ch, "You no longer have permission to read from this Channel topic: "+ch.sub)
			return
		}
	}
	ch.mu.Lock()
	ch.auth, ch.pol = auth, pol
	ch.mu.Unlock()
	ch.armExpiry()
	c.s.resubscribeChanges(ch)
}

// broadcast relays a client's broadcast to the topic on every gateway. On
// a private channel the sender needs the INSERT policy; without it the
// message is dropped (with ack, the reply says so).
func (c *conn) broadcast(ctx context.Context, ch *channel, m Message) {
	var p struct {
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(m.Payload, &p); err != nil || p.Event == "" {
		if ch.ack {
			c.replyError(m, "InvalidBroadcast: a broadcast needs an event")
		}
		return
	}
	ch.mu.Lock()
	allowed := !ch.private || ch.pol.BroadcastWrite
	ch.mu.Unlock()
	if !allowed {
		if ch.ack {
			c.replyError(m, "Unauthorized: You do not have permissions to write to this Channel topic: "+ch.sub)
		}
		return
	}
	env := envelope{Kind: "broadcast", Topic: ch.sub, Private: ch.private, Event: p.Event, Payload: p.Payload, Origin: ch.id}
	if m.Bin != nil {
		env.Payload, env.Binary = nil, m.Bin.Data
		if env.Binary == nil {
			env.Binary = []byte{}
		}
	}
	if err := c.s.publish(ctx, env); err != nil {
		c.s.log.Warn("realtime: broadcast not sent", "err", err)
		if ch.ack {
			c.replyError(m, "UnableToBroadcast: Realtime was unable to send the message")
		}
		return
	}
	if ch.ack {
		c.reply(m, "ok", json.RawMessage("{}"))
	}
}
