package realtime

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestSocketBasics joins, beats and broadcasts with self and ack under
// both serializers; under 2.0.0 the push is a binary frame, as realtime-js
// sends it.
func TestSocketBasics(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	for _, vsn := range []string{VSN1, VSN2} {
		t.Run(vsn, func(t *testing.T) {
			c := dial(t, g, vsn)
			ref := c.push("", "phoenix", "heartbeat", map[string]any{})
			if st, _ := c.reply(ref); st != "ok" {
				t.Fatalf("heartbeat: %s", st)
			}
			joinRef, resp := c.join("realtime:basics-"+vsn, cfg(map[string]any{"self": true, "ack": true}, nil))
			if string(resp) != `{"postgres_changes":[]}` {
				t.Fatalf("join response %s", resp)
			}
			if vsn == VSN2 {
				c.write(Frame{Binary: true, Data: userBroadcastPush(joinRef, "99", "realtime:basics-"+vsn, "hello", "", encodingJSON, []byte(`{"n":1}`))})
				if st, _ := c.reply("99"); st != "ok" {
					t.Fatalf("ack: %s", st)
				}
			} else {
				ref := c.push(joinRef, "realtime:basics-"+vsn, "broadcast", map[string]any{"type": "broadcast", "event": "hello", "payload": map[string]any{"n": 1}})
				if st, _ := c.reply(ref); st != "ok" {
					t.Fatalf("ack: %s", st)
				}
			}
			b := c.expect("own broadcast (self)", 5*time.Second, isBroadcast("hello"))
			if !strings.Contains(string(b.Payload), `"payload":{"n":1}`) {
				t.Fatalf("broadcast payload %s", b.Payload)
			}
			// Unknown topic: Phoenix's "unmatched topic".
			ref = c.push("", "realtime:never-joined", "broadcast", map[string]any{"event": "x"})
			if st, r := c.reply(ref); st != "error" || !strings.Contains(string(r), "unmatched topic") {
				t.Fatalf("unjoined topic: %s %s", st, r)
			}
			ref = c.push(joinRef, "realtime:basics-"+vsn, "phx_leave", map[string]any{})
			if st, _ := c.reply(ref); st != "ok" {
				t.Fatalf("leave: %s", st)
			}
			// Then phx_close under the join's refs, as Phoenix sends it.
			closed := c.expect("phx_close after the leave", 5*time.Second, func(m got) bool { return m.Event == "phx_close" })
			if closed.Topic != "realtime:basics-"+vsn || closed.Ref == nil || *closed.Ref != joinRef || closed.JoinRef == nil || *closed.JoinRef != joinRef || string(closed.Payload) != "{}" {
				t.Fatalf("phx_close: %+v", closed)
			}
		})
	}
}

// TestBroadcastSelfOffAndAcrossGateways: a client on gateway A receives
// what a client on gateway B sent; the sender without self does not; a
// binary payload reaches a 2.0.0 client as a binary frame and is not sent
// to a 1.0.0 client (which cannot represent it).
func TestBroadcastAcrossGateways(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	a := startGW(t, db, nil, nil, true)
	b := startGW(t, db, nil, nil, true)
	onA := dial(t, a, VSN2)
	onA1 := dial(t, a, VSN1)
	onB := dial(t, b, VSN2)
	topic := "realtime:fanout"
	onA.join(topic, cfg(map[string]any{}, nil))
	onA1.join(topic, cfg(map[string]any{}, nil))
	jr, _ := onB.join(topic, cfg(map[string]any{"self": false}, nil))
	onB.write(Frame{Binary: true, Data: userBroadcastPush(jr, "50", topic, "json-one", "", encodingJSON, []byte(`{"from":"b"}`))})
	for _, c := range []*client{onA, onA1} {
		m := c.expect("broadcast from B on A", 5*time.Second, isBroadcast("json-one"))
		if !strings.Contains(string(m.Payload), `"from":"b"`) {
			t.Fatalf("payload %s", m.Payload)
		}
		// 2.0.0 receives user broadcasts as binary frames (kind 4, JSON
		// encoding), as from Supabase; 1.0.0 as text.
		if m.binary != (c.vsn == VSN2) {
			t.Fatalf("vsn %s: broadcast arrived binary=%v", c.vsn, m.binary)
		}
	}
	onB.write(Frame{Binary: true, Data: userBroadcastPush(jr, "51", topic, "bytes", "", encodingBinary, []byte{1, 2, 3})})
	m := onA.expect("binary broadcast", 5*time.Second, isBroadcast("bytes"))
	if !m.binary || !bytes.Equal(m.Bin.Data, []byte{1, 2, 3}) || m.Topic != topic {
		t.Fatalf("binary broadcast arrived as %+v", m)
	}
	// A marker after the binary one: the 1.0.0 client must see the marker
	// and never the bytes; B (self off) sees neither of its own.
	onB.push(jr, topic, "broadcast", map[string]any{"type": "broadcast", "event": "marker", "payload": map[string]any{}})
	onA1.expect("marker on v1", 5*time.Second, func(g got) bool {
		if isBroadcast("bytes")(g) {
			t.Fatal("a binary broadcast reached a 1.0.0 client")
		}
		return isBroadcast("marker")(g)
	})
	onB.quiet("own broadcast with self off", 500*time.Millisecond, func(g got) bool { return g.Event == "broadcast" })
}

func TestJoinErrors(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, map[string]string{"REALTIME_MAX_CHANNELS_PER_CONNECTION": "2"}, nil, true)
	c := dial(t, g, VSN2)
	cases := []struct {
		name, topic string
		payload     map[string]any
		want        string
	}{
		{"no topic name", "realtime:", cfg(nil, nil), "TopicNameRequired: You must provide a topic name"},
		{"bad signature", "realtime:x", map[string]any{"access_token": userToken(t, "u", "authenticated", time.Hour) + "x"}, "JwtSignatureError: Failed to validate JWT signature"},
		{"not a JWT", "realtime:x", map[string]any{"access_token": "nope"}, "MalformedJWT: The token provided is not a valid JWT"},
		{"expired", "realtime:x", map[string]any{"access_token": userToken(t, "u", "authenticated", -time.Hour)}, "InvalidJWTToken: Token has expired"},
		{"no exp", "realtime:x", map[string]any{"access_token": userToken(t, "u", "authenticated", 0)}, "InvalidJWTToken: Fields `role` and `exp` are required in JWT"},
		{"no change source", "realtime:x", cfg(nil, map[string]any{"postgres_changes": []any{map[string]any{"event": "*", "schema": "public"}}}), "RealtimeDisabledForConfiguration: postgres_changes is not available"},
	}
	for _, tc := range cases {
		if got := c.joinErr(tc.topic, tc.payload); got != tc.want {
			t.Errorf("%s: reason %q, want %q", tc.name, got, tc.want)
		}
	}
	// A custom JWT with a non-UUID sub, no aud and a foreign issuer joins a
	// public channel.
	// The second is supabase-js's own integration test's token.
	custom := signClaims(t, map[string]any{"sub": "not-a-uuid", "role": "authenticated", "iss": "https://issuer.example",
		"exp": time.Now().Add(time.Hour).Unix()})
	c.join("realtime:one", map[string]any{"access_token": custom, "config": map[string]any{}})
	demo := signClaims(t, map[string]any{"sub": "1234567890", "role": "anon", "iss": "supabase-demo", "exp": time.Now().Add(time.Hour).Unix()})
	c.join("realtime:two", map[string]any{"access_token": demo, "config": map[string]any{}})
	if got := c.joinErr("realtime:three", cfg(nil, nil)); got != "ChannelRateLimitReached: Too many channels" {
		t.Fatalf("third channel: %q", got)
	}
}

func TestUpgradeRefusals(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, map[string]string{"REALTIME_MAX_CONNECTIONS": "1"}, nil, true)
	base := "ws" + strings.TrimPrefix(g.srv.URL, "http") + "/realtime/v1/websocket"
	for _, tc := range []struct {
		name, query string
		status      int
	}{
		{"no apikey", "?vsn=2.0.0", http.StatusUnauthorized},
		{"wrong apikey", "?vsn=2.0.0&apikey=nope", http.StatusUnauthorized},
		{"unknown vsn", "?vsn=3.0.0&apikey=" + g.cfg.AnonKey, http.StatusBadRequest},
	} {
		_, resp, err := websocket.Dial(t.Context(), base+tc.query, nil)
		if err == nil || resp == nil || resp.StatusCode != tc.status {
			t.Errorf("%s: err %v, response %v, want %d", tc.name, err, resp, tc.status)
		}
	}
	dial(t, g, VSN2)
	_, resp, err := websocket.Dial(t.Context(), base+"?vsn=2.0.0&apikey="+g.cfg.AnonKey, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second socket over REALTIME_MAX_CONNECTIONS=1: %v %v", err, resp)
	}
}

// TestTokenExpiryAndRefresh: a channel whose token expires gets system
// then phx_close; access_token with an expired token ends a channel the
// same way; a good new token keeps it.
func TestTokenExpiryAndRefresh(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	c := dial(t, g, VSN1)
	short := userToken(t, "u1", "authenticated", 2*time.Second)
	jr, _ := c.join("realtime:short", map[string]any{"access_token": short, "config": map[string]any{}})
	expectClose(t, c, "realtime:short", jr, "Token has expired")

	jr, _ = c.join("realtime:refresh", map[string]any{"access_token": userToken(t, "u1", "authenticated", time.Hour), "config": map[string]any{}})
	c.push(jr, "realtime:refresh", "access_token", map[string]any{"access_token": userToken(t, "u1", "authenticated", 2*time.Hour)})
	ref := c.push(jr, "realtime:refresh", "broadcast", map[string]any{"event": "still", "payload": map[string]any{}})
	c.quiet("close after a good token", 300*time.Millisecond, func(g got) bool { return g.Event == "phx_close" })
	_ = ref
	c.push(jr, "realtime:refresh", "access_token", map[string]any{"access_token": userToken(t, "u1", "authenticated", -time.Minute)})
	expectClose(t, c, "realtime:refresh", jr, "InvalidJWTToken: Token has expired")
}

func expectClose(t *testing.T, c *client, topic, joinRef, message string) {
	t.Helper()
	sys := c.expect("system before close", 5*time.Second, func(g got) bool { return g.Event == "system" && g.Topic == topic })
	var p map[string]string
	_ = json.Unmarshal(sys.Payload, &p)
	if p["status"] != "error" || p["message"] != message || p["extension"] != "system" {
		t.Fatalf("system %s, want message %q", sys.Payload, message)
	}
	cl := c.expect("phx_close", 2*time.Second, func(g got) bool { return g.Event == "phx_close" && g.Topic == topic })
	if deref(cl.JoinRef) != joinRef {
		t.Fatalf("phx_close join_ref %v, want %s", deref(cl.JoinRef), joinRef)
	}
}

// TestSocketLimits: a socket that stays silent past the idle timeout is
// closed, and so is one that sends more messages a second than allowed.
func TestSocketLimits(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, map[string]string{"REALTIME_IDLE_TIMEOUT": "1s", "REALTIME_MAX_EVENTS_PER_SECOND": "5",
		"REALTIME_MAX_JOINS_PER_SECOND": "2"}, nil, true)
	idle := dial(t, g, VSN2)
	select {
	case err := <-idle.err:
		t.Logf("idle socket closed: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("an idle socket was not closed")
	}
	busy := dial(t, g, VSN2)
	busy.join("realtime:a", cfg(nil, nil))
	busy.join("realtime:b", cfg(nil, nil))
	if got := busy.joinErr("realtime:c", cfg(nil, nil)); got != "ClientJoinRateLimitReached: Too many joins per second" {
		t.Fatalf("third join in a second: %q", got)
	}
	beat, _ := json.Marshal([]any{nil, "1", "phoenix", "heartbeat", map[string]any{}})
	for i := 0; i < 10; i++ {
		if busy.ws.Write(t.Context(), websocket.MessageText, beat) != nil {
			break
		}
	}
	select {
	case err := <-busy.err:
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Fatalf("flooding socket ended with %v, want 1008", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a flooding socket was not closed")
	}
}
