package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// RequestLog says how requests reach the log. The zero value is a
// production gateway's: one Info line per request, its access log.
type RequestLog struct {
	// Level of the one line per request. `labelbase dev` and the CLI use
	// Debug: their console is read by a person, who needs errors and the
	// invite code rather than every asset the browser fetched; with
	// LOG_LEVEL=debug every request shows again.
	Level slog.Level
	// Slow: a request that took at least this long is logged at Warn,
	// whatever Level is. Zero: no such promotion.
	Slow time.Duration
	// Traffic, when set, counts every request for a periodic summary
	// (Traffic.Report).
	Traffic *Traffic
}

// DefaultSlowRequest is the threshold `labelbase dev` warns at: ten times
// what the app's own pages take on the demo catalogue.
const DefaultSlowRequest = time.Second

// Traffic counts requests between two summaries. Its counters are atomic:
// every request adds to them, on many goroutines.
type Traffic struct {
	requests, clientErrors, serverErrors, bytes atomic.Int64
	slowest                                     atomic.Int64 // nanoseconds
}

// NewTraffic returns empty counters.
func NewTraffic() *Traffic { return &Traffic{} }

func (t *Traffic) add(status int, bytes int64, d time.Duration) {
	t.requests.Add(1)
	switch {
	case status >= 500:
		t.serverErrors.Add(1)
	case status >= 400:
		t.clientErrors.Add(1)
	}
	t.bytes.Add(bytes)
	for {
		cur := t.slowest.Load()
		if int64(d) <= cur || t.slowest.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}

// LogSummary writes one Info line with the counts since the last summary
// and starts counting afresh. It writes nothing (and returns false) when
// there were no requests: an idle console stays still.
func (t *Traffic) LogSummary(log *slog.Logger, window time.Duration) bool {
	n := t.requests.Swap(0)
	c, s, b := t.clientErrors.Swap(0), t.serverErrors.Swap(0), t.bytes.Swap(0)
	slowest := time.Duration(t.slowest.Swap(0))
	if n == 0 {
		return false
	}
	log.Info("traffic", "window", window, "requests", n, "client_errors", c, "server_errors", s,
		"bytes", b, "slowest_ms", slowest.Milliseconds())
	return true
}

// Report writes a summary every interval until ctx ends.
func (t *Traffic) Report(ctx context.Context, log *slog.Logger, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			t.LogSummary(log, every)
		}
	}
}
