package pgchanges

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) {
	leaderRetry = 100 * time.Millisecond
	standbyInterval = 500 * time.Millisecond
	pgtest.Main(m)
}

// memBus is an in-memory Bus shared by the gateways of a test: what one
// publishes reaches every subscriber, its own included, as LISTEN/NOTIFY
// does.
type memBus struct {
	mu   sync.Mutex
	n    int
	subs map[string]map[int]func([]byte)
}

func newMemBus() *memBus { return &memBus{subs: map[string]map[int]func([]byte){}} }

func (b *memBus) Publish(_ context.Context, channel string, payload []byte) error {
	b.mu.Lock()
	var fns []func([]byte)
	for _, fn := range b.subs[channel] {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(append([]byte(nil), payload...))
	}
	return nil
}

func (b *memBus) Subscribe(channel string, fn func([]byte)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	id := b.n
	if b.subs[channel] == nil {
		b.subs[channel] = map[int]func([]byte){}
	}
	b.subs[channel][id] = fn
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.subs[channel], id)
	}
}

// event is one Deliver call, decoded.
type event struct {
	IDs  []int
	Data map[string]any
}

// sink collects one subscriber set's deliveries.
type sink struct {
	mu     sync.Mutex
	events []event
	notify chan struct{}
}

func newSink() *sink { return &sink{notify: make(chan struct{}, 1024)} }

func (k *sink) deliver(ids []int, data []byte) {
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	k.mu.Lock()
	k.events = append(k.events, event{IDs: append([]int(nil), ids...), Data: m})
	k.mu.Unlock()
	select {
	case k.notify <- struct{}{}:
	default:
	}
}

func (k *sink) all() []event {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]event(nil), k.events...)
}

// waitFor waits until the sink holds n events.
func (k *sink) waitFor(t testing.TB, n int) []event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if ev := k.all(); len(ev) >= n {
			return ev
		}
		select {
		case <-k.notify:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("waited for %d events, have %d: %+v", n, len(k.all()), k.all())
		}
	}
}
