package pgchanges

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/realtime"
	"github.com/labelbase/labelbase/pkg/realtime/bus"
)

// changeSource is the adapter docs/realtime.md gives pkg/app: it must
// keep compiling, since the two packages declare the same types apart.
type changeSource struct{ s *Service }

func (c changeSource) Ready(ctx context.Context) error { return c.s.Ready(ctx) }
func (c changeSource) Check(ctx context.Context, sub realtime.Subscription) error {
	return c.s.Check(ctx, Subscription(sub))
}
func (c changeSource) Subscribe(subs []realtime.Subscription, d realtime.Deliver) func() {
	out := make([]Subscription, len(subs))
	for i, s := range subs {
		out[i] = Subscription(s)
	}
	return c.s.Subscribe(out, Deliver(d))
}

var _ realtime.ChangeSource = changeSource{}

// Two gateways on the real LISTEN/NOTIFY bus: a subscriber on either
// receives the leader's changes, in commit order, a row too large for a
// notification included.
func TestRealBusTwoGateways(t *testing.T) {
	b := setup(t)
	log := slog.New(slog.DiscardHandler)
	var services []*Service
	var sinks []*sink
	for range 2 {
		bs := bus.New(b.db.Pool, b.db.URL, log)
		s := New(Config{Pool: b.db.Pool, DirectURL: b.db.URL, Bus: bs, Logger: log})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{}, 2)
		go func() { _ = s.Run(ctx); done <- struct{}{} }()
		go func() { _ = bs.Run(ctx); done <- struct{}{} }()
		t.Cleanup(func() { cancel(); <-done; <-done; b.waitSlotReleased(t, s) })
		k := newSink()
		cancelSub := s.Subscribe([]Subscription{{ID: 4, Event: "INSERT", Schema: "public", Table: "readings", Role: "anon"}}, k.deliver)
		t.Cleanup(cancelSub)
		services, sinks = append(services, s), append(sinks, k)
	}
	waitLeading(t, services...)
	// Each bus listens a moment after it is asked to: insert probes until
	// both gateways hear one.
	deadline := time.Now().Add(15 * time.Second)
	for i := 1000; len(sinks[0].all()) == 0 || len(sinks[1].all()) == 0; i++ {
		if time.Now().After(deadline) {
			t.Fatal("the buses never carried a change")
		}
		b.exec(t, "INSERT INTO public.readings (id) VALUES ($1)", i)
		time.Sleep(100 * time.Millisecond)
	}
	b.exec(t, "INSERT INTO public.readings (id, tag) VALUES (1, $1)", strings.Repeat("x", 20000))
	b.exec(t, "INSERT INTO public.readings (id, tag) VALUES (2, 'small')")
	for g, k := range sinks {
		var rows []map[string]any // rows 1 and 2, as they arrived (probes may still trail in)
		deadline := time.Now().Add(10 * time.Second)
		for len(rows) < 2 && time.Now().Before(deadline) {
			rows = rows[:0]
			for _, e := range k.all() {
				if rec := e.Data["record"].(map[string]any); rec["id"] == float64(1) || rec["id"] == float64(2) {
					rows = append(rows, rec)
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(rows) != 2 {
			t.Fatalf("gateway %d: %d of rows 1 and 2 arrived", g, len(rows))
		}
		if tag, _ := rows[0]["tag"].(string); rows[0]["id"] != float64(1) || len(tag) != 20000 || rows[1]["tag"] != "small" {
			t.Errorf("gateway %d: got rows %v then %v, want the 20 kB row 1 then row 2", g, rows[0]["id"], rows[1]["id"])
		}
	}
}
