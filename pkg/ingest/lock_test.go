package ingest

import (
	"context"
	"errors"
	"net/http"
	"testing"
)

// Two passes at once, as from two gateways: one crawls, the other skips.
func TestConcurrentPassesTakeTurns(t *testing.T) {
	t.Parallel()
	first, b := setup(t)
	second := b.crawler(t)
	entered, release := make(chan struct{}), make(chan struct{})
	b.fake.Handle("slow.bandcamp.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(entered)
		<-release
		http.NotFound(w, r)
	}))
	b.submit(t, "https://slow.bandcamp.com")

	done := make(chan error, 1)
	go func() {
		_, err := first.RunOnce(context.Background(), nil)
		done <- err
	}()
	<-entered // the first pass holds the lock and is mid-request
	sum, err := second.RunOnce(context.Background(), nil)
	if !errors.Is(err, ErrBusy) || sum.RunID == 0 || sum != (Summary{RunID: sum.RunID}) {
		t.Errorf("second pass: %+v, %v; want ErrBusy, a run id and no work", sum, err)
	}
	if r := b.runRow(t, sum.RunID); r.Status != RunSkipped || r.FinishedAt == nil || r.Error == "" {
		t.Errorf("skipped pass recorded as %+v", r)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("first pass: %v", err)
	}
	if r := b.queue(t)["https://slow.bandcamp.com"]; !r.Processed || r.Attempts != 1 {
		t.Errorf("queue row = %+v, want judged once", r)
	}
	// The lock is free again once the first pass ends.
	if _, err := second.RunOnce(context.Background(), nil); err != nil {
		t.Errorf("pass after the first ended: %v", err)
	}
}
