package realtime

import (
	"context"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestBusListenedOnlyWhileJoined: a gateway with no joined channel does not
// listen to the bus (every insert whose trigger broadcasts would cost it a
// read); the first join listens before it is answered, so what the client
// causes right after its join reaches it; after the last leave the bus
// stops listening at its next round, and a later join listens again.
func TestBusListenedOnlyWhileJoined(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	ctx := context.Background()
	listening := func() bool {
		select {
		case <-g.s.bus.Listening(busChannel):
			return true
		case <-time.After(200 * time.Millisecond):
			return false
		}
	}
	if listening() {
		t.Fatal("the bus listens with no channel joined")
	}
	c := dial(t, g, VSN2)
	for round := range 2 {
		jr, _ := c.join("realtime:lazy", cfg(nil, nil))
		if _, err := db.Pool.Exec(ctx, `SELECT realtime.send('{}', 'right-after-join', 'lazy', false)`); err != nil {
			t.Fatal(err)
		}
		c.expect("a send right after the join", 5*time.Second, isBroadcast("right-after-join"))
		ref := c.push(jr, "realtime:lazy", "phx_leave", map[string]any{})
		if st, _ := c.reply(ref); st != "ok" {
			t.Fatalf("round %d: leave answered %s", round, st)
		}
		// Another channel makes the bus take a round, in which it drops
		// what nobody subscribes to any more.
		stop := g.s.bus.Subscribe("lazy-test-other", func([]byte) {})
		select {
		case <-g.s.bus.Listening("lazy-test-other"):
		case <-time.After(5 * time.Second):
			t.Fatal("the bus never listened to a new channel")
		}
		stop()
		if listening() {
			t.Fatalf("round %d: the bus still listens after the last leave", round)
		}
	}
}
