package ingest

import (
	"context"
	"testing"
	"time"
)

func TestNextRun(t *testing.T) {
	t.Parallel()
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct{ now, crawlAt, want string }{
		{"2026-03-01T02:59:00Z", "03:00", "2026-03-01T03:00:00Z"},
		{"2026-03-01T03:00:00Z", "03:00", "2026-03-02T03:00:00Z"},
		{"2026-03-01T23:30:00Z", "03:00", "2026-03-02T03:00:00Z"},
		{"2026-03-01T04:30:00+02:00", "03:00", "2026-03-01T03:00:00Z"}, // 02:30 UTC
		{"2026-12-31T23:59:00Z", "00:00", "2027-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		got, err := nextRun(at(tt.now), tt.crawlAt)
		if err != nil || !got.Equal(at(tt.want)) {
			t.Errorf("nextRun(%s, %s) = %v, %v; want %s", tt.now, tt.crawlAt, got, err, tt.want)
		}
	}
	if _, err := nextRun(time.Now(), "3am"); err == nil {
		t.Error("nextRun accepted 3am")
	}
}

func TestSchedulerRunsAPassWhenDue(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	b.submit(t, "https://hollowpine.bandcamp.com")
	// A pass succeeded just now, so there is nothing to catch up on.
	if _, err := b.db.Pool.Exec(context.Background(),
		`INSERT INTO private.ingest_runs (finished_at, status) VALUES (now(), 'succeeded')`); err != nil {
		t.Fatal(err)
	}
	s := NewScheduler(b.db.Pool, b.cfg, testLogger(t))
	s.opts.Fetch.Sleep = b.sleeper.Sleep
	waits := make(chan time.Duration, 10)
	fire := make(chan time.Time)
	s.after = func(d time.Duration) <-chan time.Time {
		waits <- d
		return fire
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(stopped)
	}()
	if d := <-waits; d <= 0 || d > 24*time.Hour {
		t.Errorf("first wait %v, want within a day", d)
	}
	fire <- time.Now() // 03:00 has come
	<-waits            // the pass ran and the next day is scheduled
	if r := b.queue(t)["https://hollowpine.bandcamp.com"]; !r.Processed || !r.Valid {
		t.Errorf("queue row after the scheduled pass: %+v", r)
	}
	cancel()
	<-stopped
}

func TestSchedulerDisabledOnlyWaits(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "http://127.0.0.1:9")
	cfg.CrawlDisabled = true
	s := NewScheduler(nil, cfg, testLogger(t))
	s.after = func(time.Duration) <-chan time.Time {
		t.Error("a disabled scheduler scheduled a pass")
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	s.Run(ctx) // returns when ctx ends
}

func TestSchedulerSkipsLabelsReadToday(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "http://127.0.0.1:1")
	if s := NewScheduler(nil, cfg, testLogger(t)); s.opts.RecrawlAfter != DefaultRecrawlAfter {
		t.Errorf("RecrawlAfter = %v, want the default %v", s.opts.RecrawlAfter, DefaultRecrawlAfter)
	}
	if s := NewScheduler(nil, cfg, testLogger(t), Options{RecrawlAfter: -1}); s.opts.RecrawlAfter != -1 {
		t.Errorf("RecrawlAfter = %v, want -1 (every label) kept", s.opts.RecrawlAfter)
	}
}
