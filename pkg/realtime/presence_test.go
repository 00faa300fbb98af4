package realtime

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

type presenceMsg struct {
	Joins  map[string]struct{ Metas []map[string]any } `json:"joins"`
	Leaves map[string]struct{ Metas []map[string]any } `json:"leaves"`
}

// TestPresenceAcrossGateways: a presence tracked on gateway A is in the
// presence_state a joiner on B receives and in B's diffs; untrack leaves;
// and when A dies (stops beating, its sockets never say goodbye) its
// presences leave within the timeout.
func TestPresenceAcrossGateways(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	a := startGW(t, db, nil, nil, false)
	b := startGW(t, db, nil, nil, true)
	topic := "realtime:lobby"
	presenceOn := func(key string) map[string]any {
		return map[string]any{"config": map[string]any{"presence": map[string]any{"enabled": true, "key": key}}}
	}
	onB := dial(t, b, VSN2)
	onB.join(topic, presenceOn("bob"))
	onB.expect("empty presence_state", 5*time.Second, func(g got) bool { return g.Event == "presence_state" && string(g.Payload) == "{}" })

	onA := dial(t, a, VSN1)
	jr, _ := onA.join(topic, presenceOn("alice"))
	onA.expect("presence_state on A", 5*time.Second, func(g got) bool { return g.Event == "presence_state" })
	ref := onA.push(jr, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"status": "online"}})
	if st, _ := onA.reply(ref); st != "ok" {
		t.Fatalf("track: %s", st)
	}
	d := onB.expect("join diff on B", 5*time.Second, func(g got) bool { return g.Event == "presence_diff" })
	var diff presenceMsg
	_ = json.Unmarshal(d.Payload, &diff)
	metas := diff.Joins["alice"].Metas
	if len(metas) != 1 || metas[0]["status"] != "online" || metas[0]["phx_ref"] == "" {
		t.Fatalf("join diff %s", d.Payload)
	}

	// A late joiner on B sees alice in presence_state.
	late := dial(t, b, VSN2)
	late.join(topic, presenceOn("carol"))
	st := late.expect("presence_state with alice", 5*time.Second, func(g got) bool { return g.Event == "presence_state" })
	var state map[string]struct{ Metas []map[string]any }
	_ = json.Unmarshal(st.Payload, &state)
	if len(state["alice"].Metas) != 1 || state["alice"].Metas[0]["status"] != "online" {
		t.Fatalf("presence_state %s", st.Payload)
	}

	// Track again: the old meta leaves, the new one joins.
	onA.push(jr, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"status": "away"}})
	d = onB.expect("update diff", 5*time.Second, func(g got) bool { return g.Event == "presence_diff" })
	diff = presenceMsg{}
	_ = json.Unmarshal(d.Payload, &diff)
	if diff.Joins["alice"].Metas[0]["status"] != "away" || diff.Leaves["alice"].Metas[0]["status"] != "online" {
		t.Fatalf("update diff %s", d.Payload)
	}

	// A dies: it stops beating; B's clients see alice leave.
	a.stop()
	start := time.Now()
	d = onB.expect("leave after A died", 10*time.Second, func(g got) bool {
		if g.Event != "presence_diff" {
			return false
		}
		var p presenceMsg
		_ = json.Unmarshal(g.Payload, &p)
		return len(p.Leaves["alice"].Metas) == 1
	})
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("the dead gateway's presence left after %s", waited)
	}
}

// TestPresenceUntrackAndLeave: untrack and leaving the channel both send
// leaves; a track payload that is not an object is refused.
func TestPresenceUntrackAndLeave(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	topic := "realtime:room"
	watcher := dial(t, g, VSN2)
	watcher.join(topic, map[string]any{"config": map[string]any{"presence": map[string]any{"enabled": true}}})
	c := dial(t, g, VSN2)
	jr, _ := c.join(topic, map[string]any{"config": map[string]any{"presence": map[string]any{"key": "k1"}}})
	ref := c.push(jr, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": []int{1}})
	if st, r := c.reply(ref); st != "error" {
		t.Fatalf("track with an array: %s %s", st, r)
	}
	// Tracking turns presence on: the state comes first.
	ref = c.push(jr, topic, "presence", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"n": 1}})
	c.expect("state on first track", 5*time.Second, func(g got) bool { return g.Event == "presence_state" })
	if st, _ := c.reply(ref); st != "ok" {
		t.Fatal("track refused")
	}
	leaveOf := func(key string) func(got) bool {
		return func(g got) bool {
			var p presenceMsg
			_ = json.Unmarshal(g.Payload, &p)
			return g.Event == "presence_diff" && len(p.Leaves[key].Metas) == 1
		}
	}
	watcher.expect("join", 5*time.Second, func(g got) bool { return g.Event == "presence_diff" })
	c.push(jr, topic, "presence", map[string]any{"type": "presence", "event": "untrack"})
	watcher.expect("leave on untrack", 5*time.Second, leaveOf("k1"))
	// Supabase reads the presence event case-insensitively (its own
	// tests send "TRACK").
	ref = c.push(jr, topic, "presence", map[string]any{"type": "presence", "event": "TRACK", "payload": map[string]any{"n": 2}})
	if st, r := c.reply(ref); st != "ok" {
		t.Fatalf("TRACK: %s %s", st, r)
	}
	watcher.expect("join again", 5*time.Second, func(g got) bool { return g.Event == "presence_diff" })
	_ = c.ws.CloseNow()
	watcher.expect("leave on disconnect", 5*time.Second, leaveOf("k1"))
}
