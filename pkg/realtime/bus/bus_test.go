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
