package ingest

import (
	"context"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
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

// A request naming one label reads that label alone, even one read an hour
// ago (a scheduled pass would skip it for a day), and leaves the submission
// queue for the next full pass.
func TestRequestedLabelCrawlsThatLabelOnly(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://"+fakebandcamp.ArtistHost, "https://"+fakebandcamp.SingleHost)
	run(t, c)
	b.submit(t, "https://"+fakebandcamp.LabelHost)
	var artist int64
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT id FROM public.labels WHERE label_url = $1`,
		"https://"+fakebandcamp.ArtistHost).Scan(&artist); err != nil {
		t.Fatal(err)
	}
	requests := len(b.fake.Requests())
	sched := b.crawlerWith(t, testLogger(t), Options{RecrawlAfter: 20 * time.Hour})
	sum, err := sched.RunRequested(context.Background(), []int64{artist})
	if err != nil || sum.LabelsCrawled != 1 {
		t.Fatalf("summary %+v, %v; want the one label crawled", sum, err)
	}
	seen := b.fake.Requests()[requests:]
	if len(seen) == 0 {
		t.Fatal("no request for the requested label")
	}
	for _, r := range seen {
		if r.Host != fakebandcamp.ArtistHost {
			t.Errorf("requested %s%s, not the label asked for", r.Host, r.Path)
		}
	}
	if r := b.queue(t)["https://"+fakebandcamp.LabelHost]; r.Processed {
		t.Errorf("a one-label pass processed the queue: %+v", r)
	}
}
