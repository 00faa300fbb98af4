package ingest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
)

func TestPassesAreRecorded(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	ctx := context.Background()
	// A row left running by a process that died is closed by the next pass.
	var orphan int64
	if err := b.db.Pool.QueryRow(ctx, `INSERT INTO private.ingest_runs DEFAULT VALUES RETURNING id`).Scan(&orphan); err != nil {
		t.Fatal(err)
	}
	b.submit(t, "https://northmoor.bandcamp.com", fakebandcamp.FanURL, "https://broken.bandcamp.com")

	sum, err := c.RunOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := b.runRow(t, sum.RunID)
	want := Summary{Checked: 3, Valid: 1, Invalid: 1, Retried: 1, ReleasesAdded: sum.ReleasesAdded, NetworkFailures: 1}
	if r.Status != RunSucceeded || r.FinishedAt == nil || r.FinishedAt.Before(r.StartedAt) || r.Error != "" ||
		r.Summary != want || sum.ReleasesAdded == 0 {
		t.Errorf("run row %+v; want succeeded with %+v", r, want)
	}
	if o := b.runRow(t, orphan); o.Status != RunFailed || o.FinishedAt == nil || !strings.Contains(o.Error, "interrupted") {
		t.Errorf("orphaned run = %+v, want closed as failed", o)
	}

	// A pass that ends in an error is recorded as failed, with the error.
	ctx2, cancel := context.WithCancel(ctx)
	b.fake.Handle("hangup.bandcamp.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel()
		http.NotFound(w, r)
	}))
	b.submit(t, "https://hangup.bandcamp.com")
	sum, err = c.RunOnce(ctx2, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pass: %v", err)
	}
	if r := b.runRow(t, sum.RunID); r.Status != RunFailed || r.FinishedAt == nil || !strings.Contains(r.Error, "canceled") {
		t.Errorf("cancelled pass recorded as %+v", r)
	}
	if n := b.count(t, `SELECT count(*) FROM private.ingest_runs WHERE status = 'running'`); n != 0 {
		t.Errorf("%d runs left running", n)
	}
}

// The run table is the crawler's alone.
func TestRunsAreNotExposed(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		n := b.count(t, `SELECT count(*) FROM unnest(array['SELECT','INSERT','UPDATE','DELETE']) p
		                  WHERE has_table_privilege($1, 'private.ingest_runs', p)`, role)
		if n != 0 {
			t.Errorf("%s has %d privileges on private.ingest_runs", role, n)
		}
	}
}

// refuse answers like Bandcamp under pressure: 429 without Retry-After, so
// the client backs off (on the test clock) and gives up.
var refuse = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
})

func TestPassStopsWhenBandcampPushesBack(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.fake.Handle("wall.bandcamp.com", refuse)
	b.fake.Handle("wall2.bandcamp.com", refuse)
	// A 429 after the back-off, a challenge page, a 429: three in a row.
	b.submit(t, "https://crowded.bandcamp.com", "https://guarded.bandcamp.com", "https://wall.bandcamp.com",
		"https://northmoor.bandcamp.com", "https://wall2.bandcamp.com", fakebandcamp.FanURL)

	sum, err := c.RunOnce(context.Background(), nil)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("RunOnce: %v; want ErrStopped", err)
	}
	if sum.Checked != 3 || sum.Retried != 3 || sum.LabelsCrawled != 0 || !strings.Contains(sum.Stopped, "3 requests in a row") {
		t.Errorf("summary %+v", sum)
	}
	q := b.queue(t)
	for _, u := range []string{"https://crowded.bandcamp.com", "https://guarded.bandcamp.com", "https://wall.bandcamp.com"} {
		if r := q[u]; r.Processed || r.Attempts != 1 {
			t.Errorf("%s: %+v; want one attempt, still queued", u, r)
		}
	}
	for _, u := range []string{"https://northmoor.bandcamp.com", "https://wall2.bandcamp.com", fakebandcamp.FanURL} {
		if r := q[u]; r.Processed || r.Attempts != 0 || r.AttemptAt {
			t.Errorf("%s: %+v; want it untouched for the next pass", u, r)
		}
	}
	if n := b.fake.Hits(fakebandcamp.LabelHost) + b.fake.Hits("wall2.bandcamp.com") + b.fake.Hits("bandcamp.com"); n != 0 {
		t.Errorf("%d requests after the stop", n)
	}
	if r := b.runRow(t, sum.RunID); r.Status != RunFailed || r.Error != sum.Stopped || r.Summary.Retried != 3 || r.Summary.StopReason != StopRefused {
		t.Errorf("run recorded as %+v", r)
	}

	// A real answer in between resets the count.
	b.fake.Handle("wall.bandcamp.com", nil) // now a missing account: 404
	sum = run(t, c)
	if sum.Stopped != "" || sum.Checked != 6 || sum.LabelsCrawled != 1 {
		t.Errorf("second pass %+v; want it to run to the end", sum)
	}
}

func TestPassStopsMidLabel(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	// northmoor's /music page is served, its release pages are refused.
	b.fake.Handle(fakebandcamp.LabelHost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := strings.TrimRight(r.URL.Path, "/"); p != "/music" && p != "" {
			refuse(w, r)
			return
		}
		rec := fakebandcamp.Fetch(fakebandcamp.LabelHost, r.URL.Path)
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	}))
	b.submit(t, "https://northmoor.bandcamp.com", "https://hollowpine.bandcamp.com")

	sum, err := c.RunOnce(context.Background(), nil)
	if !errors.Is(err, ErrStopped) || sum.Stopped == "" || sum.Valid != 2 || sum.LabelsCrawled != 0 {
		t.Fatalf("RunOnce: %+v, %v; want a stop in the label stage", sum, err)
	}
	var pages int
	for _, r := range b.fake.Requests() {
		if r.Host == fakebandcamp.LabelHost && r.Path != "/music" {
			pages++
		}
	}
	if want := 3 * 4; pages != want { // three release pages, four tries each
		t.Errorf("%d release page requests, want %d", pages, want)
	}
	if n := b.count(t, `SELECT count(*) FROM public.labels WHERE crawled_at IS NOT NULL`); n != 0 {
		t.Errorf("%d labels stamped crawled; the next pass should start where this one stopped", n)
	}
	// The next pass, unhindered, completes.
	b.fake.Handle(fakebandcamp.LabelHost, nil)
	if sum := run(t, c); sum.Stopped != "" || sum.LabelsCrawled != 2 {
		t.Errorf("next pass %+v", sum)
	}
	if n := b.count(t, `SELECT count(*) FROM public.releases r JOIN public.labels l ON l.id = r.label_id
	                     WHERE l.label_url = 'https://northmoor.bandcamp.com' AND NOT r.rich`); n != 0 {
		t.Errorf("%d northmoor releases still lack their page", n)
	}
}

func TestSchedulerCatchesUp(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) // CrawlAt 03:00 is 15 h away
	const delay = 90 * time.Second
	tests := []struct {
		name string
		last time.Duration // age of the last succeeded pass; 0: none
		now  time.Time
		// firstWait is the scheduler's first wait; catchUp whether a pass
		// runs then.
		firstWait time.Duration
		catchUp   bool
		// meanwhile: another gateway succeeds during the delay.
		meanwhile bool
	}{
		{name: "none", now: now, firstWait: delay, catchUp: true},
		{name: "recent", last: 23 * time.Hour, now: now, firstWait: 15 * time.Hour},
		{name: "stale", last: 25 * time.Hour, now: now, firstWait: delay, catchUp: true},
		{name: "stale but the daily pass comes first", last: 25 * time.Hour,
			now: time.Date(2026, 3, 1, 2, 59, 0, 0, time.UTC), firstWait: time.Minute},
		{name: "caught up by another gateway meanwhile", now: now, firstWait: delay, meanwhile: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, b := setup(t)
			ctx := context.Background()
			if tt.last > 0 {
				if _, err := b.db.Pool.Exec(ctx, `INSERT INTO private.ingest_runs (started_at, finished_at, status)
					VALUES ($1::timestamptz, $1::timestamptz + interval '5 minutes', 'succeeded')`, tt.now.Add(-tt.last)); err != nil {
					t.Fatal(err)
				}
			}
			b.submit(t, "https://hollowpine.bandcamp.com")
			outcomes := make(chan string, 10)
			s := NewScheduler(b.db.Pool, b.cfg, testLogger(t), Options{CatchUpDelay: delay,
				OnRun: func(o string) { outcomes <- o }})
			s.opts.Fetch.Sleep, s.opts.Fetch.Now = b.sleeper.Sleep, b.sleeper.Now
			s.now = func() time.Time { return tt.now }
			waits := make(chan time.Duration, 10)
			fire := make(chan time.Time)
			s.after = func(d time.Duration) <-chan time.Time {
				waits <- d
				return fire
			}
			runCtx, cancel := context.WithCancel(ctx)
			stopped := make(chan struct{})
			go func() {
				s.Run(runCtx)
				close(stopped)
			}()
			defer func() {
				cancel()
				<-stopped
			}()
			if d := <-waits; d != tt.firstWait {
				t.Fatalf("first wait %v, want %v", d, tt.firstWait)
			}
			if !tt.catchUp && !tt.meanwhile {
				return
			}
			if tt.meanwhile {
				if _, err := b.db.Pool.Exec(ctx, `INSERT INTO private.ingest_runs (started_at, finished_at, status)
					VALUES ($1::timestamptz, $1::timestamptz, 'succeeded')`, tt.now); err != nil {
					t.Fatal(err)
				}
			}
			fire <- tt.now
			if d := <-waits; d != 15*time.Hour { // then the daily schedule
				t.Errorf("wait after the catch-up %v, want 15h", d)
			}
			ran := b.count(t, `SELECT count(*) FROM private.ingest_runs WHERE status = 'succeeded' AND started_at > $1`,
				tt.now.Add(time.Hour))
			processed := b.queue(t)["https://hollowpine.bandcamp.com"].Processed
			if tt.catchUp && (ran != 1 || !processed) {
				t.Errorf("catch-up: %d passes recorded, queue processed %v; want one pass", ran, processed)
			}
			if tt.meanwhile && (ran != 0 || processed) {
				t.Errorf("a pass ran although another gateway had caught up")
			}
			want := "succeeded"
			if tt.meanwhile {
				want = "skipped"
			}
			if got := <-outcomes; got != want {
				t.Errorf("OnRun told %q, want %q", got, want)
			}
		})
	}
}
