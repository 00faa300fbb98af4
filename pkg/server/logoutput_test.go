package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/server"
)

// gatedWriter records each write it is given; the first one waits until
// the test opens the gate, so the test can queue lines behind it.
type gatedWriter struct {
	started chan struct{} // closed when the first write begins
	gate    chan struct{} // the first write returns once this is closed

	mu     sync.Mutex
	writes []string
}

func newGatedWriter() *gatedWriter {
	return &gatedWriter{started: make(chan struct{}), gate: make(chan struct{})}
}

func (w *gatedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	first := len(w.writes) == 0
	w.writes = append(w.writes, string(p))
	w.mu.Unlock()
	if first {
		close(w.started)
		<-w.gate
	}
	return len(p), nil
}

func (w *gatedWriter) taken() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.writes...)
}

func record(msg string) slog.Record {
	return slog.NewRecord(time.Time{}, slog.LevelInfo, msg, 0)
}

// Lines that queue while the stream is busy reach it in one write, in
// order, and none is lost.
func TestAccessLogWritesQueuedLinesInOneWrite(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	out := server.NewLogOutput(w)
	al := server.NewAccessLog(slog.New(slog.NewTextHandler(out, nil)), 64, out)
	al.Log(record("line 0"))
	<-w.started // line 0 is being written; the next ones queue
	for i := 1; i <= 20; i++ {
		al.Log(record(fmt.Sprintf("line %d", i)))
	}
	close(w.gate)
	al.Close()

	writes := w.taken()
	if len(writes) != 2 {
		t.Fatalf("%d writes, want 2 (line 0, then the 20 queued lines at once): %q", len(writes), writes)
	}
	lines := strings.Split(strings.TrimSpace(strings.Join(writes, "")), "\n")
	if len(lines) != 21 {
		t.Fatalf("%d lines, want 21:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for i, l := range lines {
		if !strings.Contains(l, fmt.Sprintf(`msg="line %d"`, i)) {
			t.Errorf("line %d is %q", i, l)
		}
	}
}

// Without a hold every line goes through at once: a warning logged while
// the access log is idle is on the stream when Warn returns.
func TestLogOutputWritesThroughWhenNotHeld(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	close(w.gate)
	out := server.NewLogOutput(w)
	log := slog.New(slog.NewTextHandler(out, nil))
	al := server.NewAccessLog(log, 8, out)
	defer al.Close()
	log.Warn("first")
	log.Error("second")
	writes := w.taken()
	if len(writes) != 2 || !strings.Contains(writes[0], "msg=first") || !strings.Contains(writes[1], "msg=second") {
		t.Fatalf("writes %q, want one per line, already written", writes)
	}
}

// A line another goroutine logs while the access log holds the stream is
// written with the batch, not lost.
func TestLogOutputLosesNoLineLoggedDuringAHold(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	out := server.NewLogOutput(w)
	log := slog.New(slog.NewTextHandler(out, nil))
	al := server.NewAccessLog(log, 64, out)
	al.Log(record("access 0"))
	<-w.started
	al.Log(record("access 1"))
	done := make(chan struct{})
	go func() {
		// Blocks on the output until access 0's write returns; then the
		// access log may hold it again for access 1.
		log.LogAttrs(context.Background(), slog.LevelWarn, "other")
		close(done)
	}()
	close(w.gate)
	<-done
	al.Close()
	all := strings.Join(w.taken(), "")
	if strings.Count(all, "\n") != 3 || !strings.Contains(all, `msg="access 1"`) || !strings.Contains(all, "msg=other") {
		t.Fatalf("want three lines with access 1 and other:\n%s", all)
	}
}

// A flood held in one batch is written in pieces of about 64 KiB, none
// lost: the buffer does not grow with the backlog.
func TestLogOutputWritesALongBatchInPieces(t *testing.T) {
	t.Parallel()
	w := newGatedWriter()
	out := server.NewLogOutput(w)
	al := server.NewAccessLog(slog.New(slog.NewTextHandler(out, nil)), 4096, out)
	pad := strings.Repeat("x", 200)
	al.Log(record("line 0 " + pad))
	<-w.started
	const n = 2000 // ~420 KB behind the first line
	for i := 1; i <= n; i++ {
		al.Log(record(fmt.Sprintf("line %d %s", i, pad)))
	}
	close(w.gate)
	al.Close()
	writes := w.taken()
	var lines int
	for _, p := range writes[1:] {
		if len(p) > 64<<10+256 {
			t.Errorf("a write of %d bytes", len(p))
		}
		lines += strings.Count(p, "\n")
	}
	if len(writes) < 7 || lines != n {
		t.Fatalf("%d writes with %d lines after the first, want pieces of ~64 KiB holding %d", len(writes), lines, n)
	}
}
