package app_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestRealtimeWithoutLogicalWAL runs the assembled gateway, as serve does,
// on a database whose wal_level is replica (PostgreSQL's default): it says
// so in its log at start, answers a postgres_changes join with an error
// that names the setting, and broadcast and presence keep working.
func TestRealtimeWithoutLogicalWAL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own")
	}
	t.Parallel()
	db := pgtest.NewOnOwnServer(t, "replica")
	logs := &logtest.Buffer{}
	g := startGateway(t, db.URL, nil, false, slog.New(slog.NewJSONHandler(logs, nil)))

	const want = "postgres_changes is not available: the database runs with wal_level=replica and needs wal_level=logical"
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no start message about wal_level in the log:\n%s", logs.String())
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(g.srv.URL, "http") + "/realtime/v1/websocket?vsn=1.0.0&apikey=" + g.app.Config.AnonKey
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	send := func(topic, event, ref string, payload any) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"topic": topic, "event": event, "ref": ref, "join_ref": ref, "payload": payload})
		if err := ws.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	type msg struct {
		Topic, Event, Ref string
		Payload           json.RawMessage
	}
	// next returns the first message match accepts; the others are kept
	// for later calls (a presence_diff may arrive before the track's reply).
	var backlog []msg
	next := func(what string, match func(msg) bool) msg {
		t.Helper()
		for i, m := range backlog {
			if match(m) {
				backlog = append(backlog[:i:i], backlog[i+1:]...)
				return m
			}
		}
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("waiting for %s: %v", what, err)
			}
			var m msg
			if json.Unmarshal(data, &m) != nil {
				continue
			}
			if match(m) {
				return m
			}
			backlog = append(backlog, m)
		}
	}
	reply := func(ref string) (status string, response json.RawMessage) {
		t.Helper()
		m := next("reply "+ref, func(m msg) bool { return m.Event == "phx_reply" && m.Ref == ref })
		var p struct {
			Status   string          `json:"status"`
			Response json.RawMessage `json:"response"`
		}
		_ = json.Unmarshal(m.Payload, &p)
		return p.Status, p.Response
	}

	changes := map[string]any{"config": map[string]any{"postgres_changes": []any{
		map[string]any{"event": "*", "schema": "public", "table": "releases"}}}}
	send("realtime:changes", "phx_join", "1", changes)
	st, resp := reply("1")
	var reason struct{ Reason string }
	_ = json.Unmarshal(resp, &reason)
	if st != "error" || !strings.HasPrefix(reason.Reason, "RealtimeDisabledForConfiguration: "+want) {
		t.Fatalf("postgres_changes join: %s %s", st, resp)
	}

	send("realtime:room", "phx_join", "2", map[string]any{"config": map[string]any{
		"broadcast": map[string]any{"self": true, "ack": true}, "presence": map[string]any{"enabled": true, "key": "k"}}})
	if st, resp := reply("2"); st != "ok" {
		t.Fatalf("broadcast/presence join: %s %s", st, resp)
	}
	send("realtime:room", "broadcast", "3", map[string]any{"type": "broadcast", "event": "hi", "payload": map[string]any{"n": 1}})
	if st, resp := reply("3"); st != "ok" {
		t.Fatalf("broadcast ack: %s %s", st, resp)
	}
	next("own broadcast", func(m msg) bool { return m.Event == "broadcast" && m.Topic == "realtime:room" })
	send("realtime:room", "presence", "4", map[string]any{"type": "presence", "event": "track", "payload": map[string]any{"here": true}})
	if st, resp := reply("4"); st != "ok" {
		t.Fatalf("track: %s %s", st, resp)
	}
	d := next("presence_diff", func(m msg) bool { return m.Event == "presence_diff" })
	if !strings.Contains(string(d.Payload), `"here":true`) {
		t.Fatalf("presence_diff %s", d.Payload)
	}
}
