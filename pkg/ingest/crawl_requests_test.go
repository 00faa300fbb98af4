package ingest

import (
	"context"
	"testing"
	"time"
)

// An admin's "crawl now" (a row in private.crawl_requests, written by
// admin_request_crawl) starts a pass at the scheduler's next poll instead of
// waiting for CRAWL_AT, and the planned time is recorded for the console.
func TestSchedulerPicksUpCrawlRequests(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	ctx := context.Background()
	b.submit(t, "https://hollowpine.bandcamp.com")
	if _, err := b.db.Pool.Exec(ctx,
		`INSERT INTO private.ingest_runs (finished_at, status) VALUES (now(), 'succeeded')`); err != nil {
		t.Fatal(err)
	}
	s := NewScheduler(b.db.Pool, b.cfg, testLogger(t))
	s.opts.Fetch.Sleep = b.sleeper.Sleep
	s.poll = 5 * time.Millisecond
	waits := make(chan time.Duration, 10)
	s.after = func(d time.Duration) <-chan time.Time {
		waits <- d
		return nil // CRAWL_AT never comes in this test
	}
	runCtx, cancel := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		s.Run(runCtx)
		close(stopped)
	}()
	<-waits // waiting for CRAWL_AT
	var next time.Time
	if err := b.db.Pool.QueryRow(ctx, `SELECT next_at FROM private.crawl_schedule`).Scan(&next); err != nil ||
		next.Before(time.Now()) || next.After(time.Now().Add(25*time.Hour)) {
		t.Errorf("recorded next pass %v, %v", next, err)
	}
	if r := b.queue(t)["https://hollowpine.bandcamp.com"]; r.Processed {
		t.Fatalf("processed before any request: %+v", r)
	}
	if _, err := b.db.Pool.Exec(ctx, `SELECT public.admin_request_crawl()`); err != nil {
		t.Fatal(err)
	}
	<-waits // the requested pass ran and the scheduler waits again
	if r := b.queue(t)["https://hollowpine.bandcamp.com"]; !r.Processed || !r.Valid {
		t.Errorf("queue row after the requested pass: %+v", r)
	}
	var open, runs int
	if err := b.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM private.crawl_requests WHERE picked_up_at IS NULL),
		(SELECT count(*) FROM private.ingest_runs WHERE status = 'succeeded')`).Scan(&open, &runs); err != nil || open != 0 || runs != 2 {
		t.Errorf("open requests %d, succeeded runs %d, %v", open, runs, err)
	}
	cancel()
	<-stopped
}
