package pgchanges

import (
	"testing"
	"time"
)

// Two gateways on one database: one streams, both deliver each change
// exactly once to their own subscribers; when the leader dies the other
// takes over and changes keep arriving.
func TestLeaderFailover(t *testing.T) {
	b := setup(t)
	g1, stop1 := b.gateway(t)
	g2, stop2 := b.gateway(t)
	leader := waitLeading(t, g1, g2)
	follower, stopLeader := g2, stop1
	if leader == g2 {
		follower, stopLeader = g1, stop2
	}
	onLeader, onFollower := newSink(), newSink()
	sub := []Subscription{{ID: 3, Event: "INSERT", Schema: "public", Table: "readings", Role: "anon"}}
	cancelLeaderSub := leader.Subscribe(sub, onLeader.deliver)
	defer follower.Subscribe(sub, onFollower.deliver)()

	b.exec(t, "INSERT INTO public.readings (id) VALUES (1)")
	onLeader.waitFor(t, 1)
	onFollower.waitFor(t, 1)
	if follower.leading.Load() {
		t.Fatal("both gateways stream the WAL")
	}

	cancelLeaderSub()
	stopLeader()
	waitLeading(t, follower)
	b.exec(t, "INSERT INTO public.readings (id) VALUES (2)")
	ev := onFollower.waitFor(t, 2)
	if len(onLeader.all()) != 1 {
		t.Errorf("the stopped gateway's subscriber got %d events, want 1", len(onLeader.all()))
	}
	if len(ev) != 2 {
		t.Errorf("follower subscriber got %d events, want 2 (each change once)", len(ev))
	}
	if id := ev[1].Data["record"].(map[string]any)["id"]; id != float64(2) {
		t.Errorf("second event is row %v, want 2", id)
	}
}

// Without the publication the gateway keeps running and says why; once
// the publication exists it starts streaming.
func TestLeaderWaitsForPublication(t *testing.T) {
	b := setup(t)
	b.exec(t, "DROP PUBLICATION supabase_realtime")
	s, _ := b.gateway(t)
	time.Sleep(300 * time.Millisecond)
	if s.leading.Load() {
		t.Fatal("streaming without a publication")
	}
	b.exec(t, "CREATE PUBLICATION supabase_realtime FOR TABLE public.readings")
	waitLeading(t, s)
	k := newSink()
	defer s.Subscribe([]Subscription{{ID: 1, Event: "*", Schema: "public", Table: "readings", Role: "anon"}}, k.deliver)()
	b.exec(t, "INSERT INTO public.readings (id) VALUES (1)")
	k.waitFor(t, 1)
}
