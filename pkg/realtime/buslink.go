package realtime

import (
	"context"
	"sync"
	"time"
)

// busLink subscribes this gateway to the bus while at least one channel is
// joined here, and not otherwise. Every insert into a table whose trigger
// calls realtime.send notifies the bus, and the admin queue's live view
// makes every member's submission one: a gateway that listened always
// paid a read and a dispatch per insert (a fifth of its CPU on inserts)
// for messages nobody on it could receive.
type busLink struct {
	s      *Service
	mu     sync.Mutex
	joined int
	cancel func()
}

// listenWait bounds how long a join waits for the bus to listen. A bus
// that is reconnecting does not hold joins up: they are answered, and
// miss what is sent until it is back, as they would have before.
const listenWait = 5 * time.Second

// acquire counts one more joined channel and, when the bus was not
// subscribed, subscribes it and waits until it listens: a client that
// joins and then writes a row whose trigger broadcasts must receive that
// broadcast.
func (l *busLink) acquire(ctx context.Context) {
	l.mu.Lock()
	l.joined++
	if l.cancel == nil {
		l.cancel = l.s.bus.Subscribe(busChannel, l.s.onBus)
	}
	l.mu.Unlock()
	wait, cancel := context.WithTimeout(ctx, listenWait)
	defer cancel()
	select {
	case <-l.s.bus.Listening(busChannel):
	case <-wait.Done():
		if ctx.Err() == nil { // not the socket closing meanwhile
			l.s.log.Warn("realtime: joined before the bus listened", "waited", listenWait)
		}
	}
}

// release counts one channel fewer and ends the subscription with the
// last one (the bus UNLISTENs at its next round, so a join soon after
// finds it still listening).
func (l *busLink) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.joined--
	if l.joined == 0 && l.cancel != nil {
		l.cancel()
		l.cancel = nil
	}
}

// close ends the subscription whatever is joined (the service is closing).
func (l *busLink) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cancel != nil {
		l.cancel()
		l.cancel = nil
	}
}
