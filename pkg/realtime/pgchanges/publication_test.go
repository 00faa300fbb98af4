package pgchanges

import (
	"context"
	"testing"
	"time"
)

// TestStreamsOnlyWhilePublished: with no table in the publication no
// gateway streams (no slot, no walsender); a binding accepted after a
// table is added is live when Check returns, so a row inserted right
// after it is delivered; when the publication is emptied again the
// leader stops within its standby interval.
func TestStreamsOnlyWhilePublished(t *testing.T) {
	b := setup(t)
	b.exec(t, "ALTER PUBLICATION supabase_realtime DROP TABLE public.notes, public.readings, public.secret")
	s, _ := b.gateway(t)
	slots := func() int {
		var n int
		if err := b.db.Pool.QueryRow(context.Background(),
			`SELECT count(*) FROM pg_replication_slots WHERE slot_name LIKE 'labelbase\_realtime\_%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	time.Sleep(5 * leaderRetry) // several turns of the leader loop
	if s.leading.Load() || slots() != 0 {
		t.Fatalf("streaming an empty publication: leading %v, %d slots", s.leading.Load(), slots())
	}

	b.exec(t, "ALTER PUBLICATION supabase_realtime ADD TABLE public.readings")
	sub := Subscription{ID: 1, Event: "INSERT", Schema: "public", Table: "readings", Role: "anon", Claims: []byte(`{"role":"anon"}`)}
	if err := s.Check(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	got := newSink()
	defer s.Subscribe([]Subscription{sub}, got.deliver)()
	b.exec(t, "INSERT INTO public.readings (id, n) VALUES (1, 7)")
	if ev := got.waitFor(t, 1); ev[0].Data["record"].(map[string]any)["n"] != float64(7) {
		t.Fatalf("delivered %v", ev[0].Data)
	}

	b.exec(t, "ALTER PUBLICATION supabase_realtime DROP TABLE public.readings")
	deadline := time.Now().Add(10 * standbyInterval)
	for s.leading.Load() || slots() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("still streaming an emptied publication: leading %v, %d slots", s.leading.Load(), slots())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
