package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// closedPort is a loopback address nothing listens on: every connection
// is refused, as when the machine is offline.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// addLabels inserts n ordinary (not demo) labels.
func addLabels(t *testing.T, db *pgtest.DB, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := db.Pool.Exec(context.Background(), `INSERT INTO public.labels (label_name, label_url) VALUES ($1, $2)`,
			fmt.Sprintf("Real %d", i), fmt.Sprintf("https://real%d.bandcamp.com", i)); err != nil {
			t.Fatal(err)
		}
	}
}

// When Bandcamp cannot be reached, the pass stops after the configured
// number of failures in a row instead of trying every label, keeps the
// rest for later, and records why.
func TestUnreachableBandcampStopsThePass(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	b.cfg = testConfig(closedPort(t))
	b.cfg.CrawlMaxNetworkFailures = 2
	addLabels(t, b.db, 6)
	b.submit(t, "https://queued-one.bandcamp.com", "https://queued-two.bandcamp.com", "https://queued-three.bandcamp.com")
	c := b.crawler(t)
	sum, err := c.RunOnce(context.Background(), nil)
	if !errors.Is(err, ErrUnreachable) || !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if !sum.Unreachable || !strings.Contains(sum.Stopped, "could not be reached 2 times in a row") {
		t.Fatalf("summary = %+v", sum)
	}
	// Two queue rows were tried and left; nothing else was attempted.
	if sum.Checked != 2 || sum.Retried != 2 || sum.LabelsCrawled+sum.LabelsFailed != 0 || sum.QueueLeft != 3 {
		t.Errorf("summary = %+v, want 2 queue rows tried, no label visited, 3 left", sum)
	}
	run := b.runRow(t, sum.RunID)
	if run.Status != RunFailed || !strings.Contains(run.Error, "could not be reached") || run.Summary.QueueLeft != 3 || !run.Summary.Unreachable {
		t.Errorf("recorded run = %+v", run)
	}
	if got := b.count(t, `SELECT count(*) FROM public.labels_to_add WHERE NOT is_processed`); got != 3 {
		t.Errorf("%d queue rows unprocessed, want all 3 kept", got)
	}
}

func TestUnreachableErrClassification(t *testing.T) {
	t.Parallel()
	_, err := net.Dial("tcp", strings.TrimPrefix(closedPort(t), "http://"))
	if !unreachableErr(fmt.Errorf("fetch: %w", err)) {
		t.Errorf("connection refused (%v) not seen as unreachable", err)
	}
	if !unreachableErr(&net.DNSError{Err: "no such host", Name: "x.bandcamp.com", IsNotFound: true}) {
		t.Error("DNS failure not seen as unreachable")
	}
	for _, e := range []error{fetch.ErrBlocked, fetch.ErrDisallowed, errors.New("HTTP 500"), context.Canceled} {
		if unreachableErr(e) {
			t.Errorf("%v seen as unreachable", e)
		}
	}
}

// The demo catalogue's invented labels are never requested; a label
// submitted to the same database is still processed.
func TestDemoLabelsAreNotCrawled(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	ctx := context.Background()
	if _, err := demo.Load(ctx, b.db.Pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	b.submit(t, "https://hollowpine.bandcamp.com")
	sum, err := c.RunOnce(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range b.fake.Requests() {
		if !strings.HasPrefix(r.Host, "hollowpine.") {
			t.Errorf("a request went to %s%s; only the submitted label may be crawled", r.Host, r.Path)
		}
	}
	if r := b.queue(t)["https://hollowpine.bandcamp.com"]; !r.Processed || !r.Valid {
		t.Errorf("submitted label: %+v", r)
	}
	if sum.LabelsCrawled != 1 {
		t.Errorf("labels crawled = %d, want only the submitted one", sum.LabelsCrawled)
	}
	if n := b.count(t, `SELECT count(*) FROM public.labels WHERE demo`); n == 0 {
		t.Error("the demo catalogue is not marked as demo")
	}
}

// syncBuffer is a log sink tests can read while the scheduler writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Split(strings.TrimSpace(s.b.String()), "\n")
}

// Offline, a dev gateway's first pass (the catch-up, on a database with the
// demo catalogue and a submission) writes a handful of lines at INFO and
// above, then retries after 15 minutes, then 30 — not every minute, and
// not tomorrow.
func TestSchedulerOfflineIsQuietAndBacksOff(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := demo.Load(ctx, b.db.Pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	b.submit(t, "https://queued.bandcamp.com")
	addLabels(t, b.db, 5)
	b.cfg = testConfig(closedPort(t))
	b.cfg.CrawlCatchUpDelay = time.Second
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s := NewScheduler(b.db.Pool, b.cfg, log, Options{Fetch: fetch.Options{Sleep: b.sleeper.Sleep, Now: b.sleeper.Now}})
	waits := make(chan time.Duration, 10)
	fire := make(chan time.Time)
	s.after = func(d time.Duration) <-chan time.Time {
		waits <- d
		return fire
	}
	done := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(done)
	}()
	if d := <-waits; d != time.Second {
		t.Fatalf("catch-up wait %v, want the configured 1s", d)
	}
	fire <- time.Now()
	// (Measured against the wall clock, so a hair under the backoff.)
	near := func(d, want time.Duration) bool { return d > want-time.Second && d <= want }
	if d := <-waits; !near(d, RetryUnreachable) {
		t.Errorf("after an offline pass the next attempt is in %v, want %v", d, RetryUnreachable)
	}
	lines := logs.lines()
	if len(lines) > 5 {
		t.Errorf("the first offline pass wrote %d lines at INFO or above, want at most 5:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	if !strings.Contains(strings.Join(lines, "\n"), "could not be reached") {
		t.Errorf("no line says why the pass stopped:\n%s", strings.Join(lines, "\n"))
	}
	fire <- time.Now()
	if d := <-waits; !near(d, 2*RetryUnreachable) {
		t.Errorf("after a second offline pass the next attempt is in %v, want %v", d, 2*RetryUnreachable)
	}
	cancel()
	<-done
}
