package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// fakeChanges is an in-memory ChangeSource: Check refuses the table
// "missing", and emit hands a change to every subscriber.
type fakeChanges struct {
	mu       sync.Mutex
	notReady error
	subs     map[int]fakeSub
	next     int
}

type fakeSub struct {
	subs    []Subscription
	deliver Deliver
}

func (f *fakeChanges) Ready(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.notReady
}

func (f *fakeChanges) setNotReady(err error) {
	f.mu.Lock()
	f.notReady = err
	f.mu.Unlock()
}

func (f *fakeChanges) Check(_ context.Context, sub Subscription) error {
	if sub.Table == "missing" {
		return errors.New(`Unable to subscribe to changes with given parameters: table "missing" is not in the publication supabase_realtime`)
	}
	return nil
}

func (f *fakeChanges) Subscribe(subs []Subscription, deliver Deliver) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.subs == nil {
		f.subs = map[int]fakeSub{}
	}
	f.next++
	id := f.next
	f.subs[id] = fakeSub{subs, deliver}
	return func() {
		f.mu.Lock()
		delete(f.subs, id)
		f.mu.Unlock()
	}
}

func (f *fakeChanges) emit(table string, data string) (roles []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.subs {
		var ids []int
		for _, sub := range s.subs {
			if sub.Table == table {
				ids = append(ids, sub.ID)
				roles = append(roles, sub.Role)
			}
		}
		if len(ids) > 0 {
			s.deliver(ids, []byte(data))
		}
	}
	return roles
}

func (f *fakeChanges) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

func TestPostgresChangesJoin(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	src := &fakeChanges{}
	g := startGW(t, db, nil, src, true)
	c := dial(t, g, VSN2)
	bindings := []any{
		map[string]any{"event": "INSERT", "schema": "public", "table": "releases"},
		map[string]any{"event": "*", "schema": "public", "table": "missing", "filter": "id=eq.1"},
	}
	jr, resp := c.join("realtime:changes", map[string]any{"access_token": userToken(t, "u1", "authenticated", time.Hour),
		"config": map[string]any{"postgres_changes": bindings}})
	var r struct {
		PostgresChanges []map[string]any `json:"postgres_changes"`
	}
	_ = json.Unmarshal(resp, &r)
	if len(r.PostgresChanges) != 2 || r.PostgresChanges[0]["table"] != "releases" || r.PostgresChanges[1]["filter"] != "id=eq.1" ||
		r.PostgresChanges[0]["id"] == nil || r.PostgresChanges[0]["event"] != "INSERT" {
		t.Fatalf("join reply %s", resp)
	}
	sysOf := func(status string) func(got) bool {
		return func(g got) bool {
			var p map[string]string
			_ = json.Unmarshal(g.Payload, &p)
			return g.Event == "system" && p["extension"] == "postgres_changes" && p["status"] == status
		}
	}
	e := c.expect("the binding that can never deliver is told", 5*time.Second, sysOf("error"))
	if !strings.Contains(string(e.Payload), "not in the publication") {
		t.Fatalf("system error %s", e.Payload)
	}
	c.expect("Subscribed to PostgreSQL", 5*time.Second, sysOf("ok"))
	if roles := src.emit("releases", `{"schema":"public","table":"releases","type":"INSERT","record":{"id":1}}`); len(roles) != 1 || roles[0] != "authenticated" {
		t.Fatalf("subscriber roles %v", roles)
	}
	m := c.expect("postgres_changes", 5*time.Second, func(g got) bool { return g.Event == "postgres_changes" })
	var p struct {
		IDs  []float64      `json:"ids"`
		Data map[string]any `json:"data"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	if len(p.IDs) != 1 || p.IDs[0] != r.PostgresChanges[0]["id"] || p.Data["type"] != "INSERT" {
		t.Fatalf("postgres_changes %s", m.Payload)
	}
	// A new token re-subscribes with its claims; leaving cancels.
	c.push(jr, "realtime:changes", "access_token", map[string]any{"access_token": userToken(t, "u1", "service_role", time.Hour)})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if roles := src.emit("nothing", "{}"); roles == nil && src.count() == 1 {
			src.mu.Lock()
			var role string
			for _, s := range src.subs {
				role = s.subs[0].Role
			}
			src.mu.Unlock()
			if role == "service_role" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the new token's role never reached the subscription")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ref := c.push(jr, "realtime:changes", "phx_leave", map[string]any{})
	c.reply(ref)
	// The reply goes out before the channel is taken down; the
	// subscription ends right after it.
	for deadline := time.Now().Add(5 * time.Second); src.count() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d subscriptions left after phx_leave", src.count())
		}
	}

	// Not ready (e.g. wal_level is not logical): a clear join error.
	src.setNotReady(errors.New("wal_level is replica, not logical"))
	if got := c.joinErr("realtime:changes2", map[string]any{"config": map[string]any{"postgres_changes": bindings[:1]}}); !strings.Contains(got, "wal_level is replica") {
		t.Fatalf("not ready: %q", got)
	}
	// Bad event name: told at join, never silence.
	src.setNotReady(nil)
	c.join("realtime:changes3", map[string]any{"config": map[string]any{"postgres_changes": []any{map[string]any{"event": "TRUNCATE", "schema": "public", "table": "t"}}}})
	c.expect("bad event told", 5*time.Second, sysOf("error"))
}
