package server

import (
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// writes records every write it is given.
type writes struct {
	mu  sync.Mutex
	all []string
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.all = append(w.all, string(p))
	return len(p), nil
}

func (w *writes) taken() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.all...)
}

// After a write the writer lets lines gather for its linger: lines logged
// meanwhile wait for it (here an hour, cut short by Close) and then go out
// in one write, none lost. The first line is written at once.
func TestAccessLogLingersAfterAWrite(t *testing.T) {
	t.Parallel()
	w := &writes{}
	out := NewLogOutput(w)
	al := NewAccessLog(slog.New(slog.NewTextHandler(out, nil)), 64, out)
	al.linger = time.Hour // read by the writer only after its first write
	al.Log(slog.NewRecord(time.Time{}, slog.LevelInfo, "first", 0))
	for deadline := time.Now().Add(5 * time.Second); len(w.taken()) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first line was not written")
		}
	}
	for range 20 {
		al.Log(slog.NewRecord(time.Time{}, slog.LevelInfo, "later", 0))
	}
	// Without the linger the writer would wake for these at once.
	time.Sleep(50 * time.Millisecond)
	if n := len(w.taken()); n != 1 {
		t.Fatalf("%d writes while the writer lingers, want 1", n)
	}
	al.Close()
	got := w.taken()
	if len(got) != 2 || strings.Count(got[1], "msg=later") != 20 {
		t.Fatalf("writes after Close: %q, want the first line and then the 20 others in one write", got)
	}
}
