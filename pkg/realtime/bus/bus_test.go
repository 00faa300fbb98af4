package bus

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestBusAcrossConnections: two buses on one database (two gateways) each
// receive what either publishes, small and large (through the table),
// text and bytes, in order; a cancelled subscription receives nothing.
func TestBusAcrossConnections(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.DiscardHandler)
	a, b := New(db.Pool, db.URL, log), New(db.Pool, db.URL, log)
	gotA, gotB := make(chan []byte, 10), make(chan []byte, 10)
	a.Subscribe("ch", func(p []byte) { gotA <- p })
	b.Subscribe("ch", func(p []byte) { gotB <- p })
	go func() { _ = a.Run(ctx) }()
	go func() { _ = b.Run(ctx) }()
	<-a.Ready()
	<-b.Ready()
	large := []byte(strings.Repeat("z", 20000))
	binary := []byte{0, 1, 2, 0xff}
	for _, p := range [][]byte{[]byte("small"), large, binary} {
		if err := a.Publish(ctx, "ch", p); err != nil {
			t.Fatal(err)
		}
	}
	for name, ch := range map[string]chan []byte{"A": gotA, "B": gotB} {
		for i, want := range [][]byte{[]byte("small"), large, binary} {
			select {
			case got := <-ch:
				if !bytes.Equal(got, want) {
					t.Fatalf("%s message %d: %d bytes, want %d", name, i, len(got), len(want))
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s message %d never arrived", name, i)
			}
		}
	}
	// A channel subscribed after Run started is listened to as well.
	late := make(chan []byte, 1)
	cancelLate := b.Subscribe("late", func(p []byte) { late <- p })
	deadline := time.Now().Add(5 * time.Second)
	for got := false; !got; {
		_ = a.Publish(ctx, "late", []byte("x"))
		select {
		case <-late:
			got = true
		case <-time.After(100 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("a channel subscribed late was never listened to")
			}
		}
	}
	cancelLate()
	_ = a.Publish(ctx, "late", []byte("after cancel"))
	select {
	case p := <-late:
		if string(p) == "after cancel" {
			t.Fatal("a cancelled subscription still receives")
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// TestListeningFollowsSubscriptions: Listening closes once a subscribed
// channel is listened to; a channel without subscribers is UNLISTENed at
// the next round and not reported as listened; subscribing again before
// that round finds it still listening, and after it listens again.
func TestListeningFollowsSubscriptions(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	b := New(db.Pool, db.URL, slog.New(slog.DiscardHandler))
	go func() { _ = b.Run(ctx) }()
	<-b.Ready()
	closed := func(c <-chan struct{}, within time.Duration) bool {
		select {
		case <-c:
			return true
		case <-time.After(within):
			return false
		}
	}
	// round makes the listener take a round (a new channel wakes it).
	round := func(name string) {
		stop := b.Subscribe(name, func([]byte) {})
		if !closed(b.Listening(name), 5*time.Second) {
			t.Fatalf("%s was never listened to", name)
		}
		stop()
	}
	if closed(b.Listening("x"), 200*time.Millisecond) {
		t.Fatal("x reported listened before anyone subscribed")
	}
	got := make(chan string, 10)
	stop := b.Subscribe("x", func(p []byte) { got <- string(p) })
	if !closed(b.Listening("x"), 5*time.Second) {
		t.Fatal("x never listened to")
	}
	if err := b.Publish(ctx, "x", []byte("one")); err != nil {
		t.Fatal(err)
	}
	if p := <-got; p != "one" {
		t.Fatalf("got %q", p)
	}
	// Cancelled and subscribed again before a round: still listening.
	stop()
	stop = b.Subscribe("x", func(p []byte) { got <- string(p) })
	if !closed(b.Listening("x"), 50*time.Millisecond) {
		t.Fatal("x stopped being listened to before the listener's round")
	}
	stop()
	round("y")
	if closed(b.Listening("x"), 200*time.Millisecond) {
		t.Fatal("x still listened to after a round without subscribers")
	}
	stop = b.Subscribe("x", func(p []byte) { got <- string(p) })
	defer stop()
	if !closed(b.Listening("x"), 5*time.Second) {
		t.Fatal("x not listened to again")
	}
	if err := b.Publish(ctx, "x", []byte("two")); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-got:
		if p != "two" {
			t.Fatalf("got %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing arrived after subscribing again")
	}
}
