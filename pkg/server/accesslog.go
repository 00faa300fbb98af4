package server

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// AccessLog writes the gateway's one line per request on its own goroutine,
// so formatting the line and the write to stderr (measured at ~7 % of the
// gateway's CPU when done inline) are off the request's path.
//
// Lines wait in a bounded queue. When it is full — the log sink is slower
// than the request rate for longer than a queue's worth of lines — Log
// blocks until there is room instead of dropping: an access log with holes
// is worse for an operator than a request slowed to the speed the
// synchronous log had anyway, and a slow sink stays visible as latency
// rather than hidden as a counter. Close drains the queue, so a clean
// shutdown loses no line.
//
// With the process's LogOutput the writer holds it while it writes every
// line already queued, so a burst reaches the stream in one write. After a
// write it waits accessLogLinger before the next, so under load the lines
// of that time go out together: one write and one wake-up of the writer
// per linger rather than per few requests. The first line after a quiet
// spell is written at once.
type AccessLog struct {
	h    slog.Handler
	out  *LogOutput // nil: one write per line
	q    chan slog.Record
	done chan struct{}
	// linger is accessLogLinger; stop cuts it short when Close is called.
	linger time.Duration
	stop   chan struct{}

	mu     sync.RWMutex // held for reading while sending, for writing to close q
	closed bool
}

// DefaultAccessLogQueue lines absorb bursts well past what one gateway
// serves in the time a stalled terminal or journald takes to catch up.
const DefaultAccessLogQueue = 4096

// accessLogLinger is how long the writer lets lines gather after a write:
// long enough that a gateway at thousands of requests a second writes its
// log a hundred times a second instead of once per two or three requests
// (a system call and a goroutine wake-up each), short enough that nobody
// watching the log sees the delay. At 10,000 requests a second a linger's
// lines are a fortieth of DefaultAccessLogQueue.
const accessLogLinger = 10 * time.Millisecond

// NewAccessLog starts the writer for log's handler with a queue of size
// lines. out is the stream log writes to, if it is a LogOutput, else nil.
// Call Close once the HTTP server has stopped.
func NewAccessLog(log *slog.Logger, size int, out *LogOutput) *AccessLog {
	if size < 1 {
		size = 1
	}
	a := &AccessLog{h: log.Handler(), out: out, q: make(chan slog.Record, size), done: make(chan struct{}),
		linger: accessLogLinger, stop: make(chan struct{})}
	go a.run()
	return a
}

func (a *AccessLog) run() {
	defer close(a.done)
	for r := range a.q {
		a.out.hold()
		_ = a.h.Handle(context.Background(), r)
		// The lines queued meanwhile, up to a queue's worth so a
		// steady flood still flushes.
		for n := len(a.q); n > 0; n-- {
			r, ok := <-a.q
			if !ok {
				break
			}
			_ = a.h.Handle(context.Background(), r)
		}
		a.out.release()
		a.wait()
	}
}

// wait lingers after a write, unless Close was called: a closing gateway
// writes what is left at once.
func (a *AccessLog) wait() {
	t := time.NewTimer(a.linger)
	defer t.Stop()
	select {
	case <-t.C:
	case <-a.stop:
	}
}

// enabled avoids building a record nobody will write.
func (a *AccessLog) enabled(level slog.Level) bool {
	return a.h.Enabled(context.Background(), level)
}

// Log queues r. After Close it writes r directly: a straggler is still
// recorded, just synchronously.
func (a *AccessLog) Log(r slog.Record) {
	a.mu.RLock()
	if a.closed {
		a.mu.RUnlock()
		_ = a.h.Handle(context.Background(), r)
		return
	}
	a.q <- r
	a.mu.RUnlock()
}

// Close stops accepting lines, writes every queued one and returns when
// they are written. It is safe to call more than once.
func (a *AccessLog) Close() {
	a.mu.Lock()
	if !a.closed {
		a.closed = true
		close(a.stop)
		close(a.q)
	}
	a.mu.Unlock()
	<-a.done
}
