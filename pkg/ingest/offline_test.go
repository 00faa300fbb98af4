package ingest

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
	"github.com/labelbase/labelbase/pkg/ingest/fetch/fetchtest"
	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// closedPort returns an http origin on loopback where nothing listens, so
// every request is refused at the TCP level: Bandcamp as an offline
// gateway sees it.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// addLabels inserts labels as if earlier passes had created them.
func (b *testBundle) addLabels(t *testing.T, urls ...string) {
	t.Helper()
	for _, u := range urls {
		if _, err := b.db.Pool.Exec(context.Background(),
			`INSERT INTO public.labels (label_name, label_url, tags) VALUES ($1, $1, '{}')`, u); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDemoLabelsAreNotCrawled(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	ctx := context.Background()
	if loaded, err := demo.Load(ctx, b.db.Pool, time.Now()); err != nil || !loaded {
		t.Fatalf("demo.Load = %v, %v", loaded, err)
	}
	b.submit(t, "https://"+fakebandcamp.ArtistHost)
	sum := run(t, c)
	if sum.Valid != 1 || sum.LabelsCrawled != 1 || sum.ReleasesAdded == 0 {
		t.Errorf("summary %+v: want the submitted label crawled and nothing else", sum)
	}
	if r := b.queue(t)["https://"+fakebandcamp.ArtistHost]; !r.Processed || !r.Valid {
		t.Errorf("submitted label not processed: %+v", r)
	}
	demoHosts := map[string]bool{}
	for _, l := range demo.Generate(time.Now()).Labels {
		u, _ := url.Parse(l.URL)
		demoHosts[u.Host] = true
	}
	for _, r := range b.fake.Requests() {
		if demoHosts[r.Host] {
			t.Errorf("the crawler requested demo label %s%s", r.Host, r.Path)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM public.labels l JOIN private.demo_labels d ON d.label_id = l.id
		WHERE l.crawled_at IS NULL`); n != demo.Labels {
		t.Errorf("%d uncrawled demo labels, want %d", n, demo.Labels)
	}
	if n := b.count(t, `SELECT count(*) FROM public.releases r JOIN private.demo_labels d USING (label_id)`); n != demo.Releases {
		t.Errorf("demo releases changed: %d, want %d", n, demo.Releases)
	}
}

func TestMarkExistingDemoCatalogueSparesSubmittedLabels(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	ctx := context.Background()
	if _, err := demo.Load(ctx, b.db.Pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	// An older data directory: loaded before demo labels were marked, and
	// a member has since submitted one of the invented URLs.
	real := demo.Generate(time.Now()).Labels[0].URL
	if _, err := b.db.Pool.Exec(ctx, `DELETE FROM private.demo_labels`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.db.Pool.Exec(ctx, `
		INSERT INTO public.labels_to_add (label_url, is_processed, is_valid, user_id, label_id)
		SELECT label_url, true, true, $2, id FROM public.labels WHERE label_url = $1`, real, b.user); err != nil {
		t.Fatal(err)
	}
	n, err := demo.MarkExisting(ctx, b.db.Pool, time.Now())
	if err != nil || n != demo.Labels-1 {
		t.Fatalf("MarkExisting = %d, %v; want %d", n, err, demo.Labels-1)
	}
	if again, err := demo.MarkExisting(ctx, b.db.Pool, time.Now()); err != nil || again != 0 {
		t.Errorf("second MarkExisting = %d, %v; want 0", again, err)
	}
	labels, err := b.crawler(t).store.labels(ctx, nil)
	if err != nil || len(labels) != 1 || labels[0].url != real {
		t.Errorf("labels to crawl = %v, %v; want only the submitted %s", labels, err, real)
	}
}

// offlineBundle is a database whose crawler cannot reach Bandcamp.
func offlineBundle(t *testing.T) *testBundle {
	t.Helper()
	b := &testBundle{db: pgtest.New(t), sleeper: fetchtest.NewClock(time.Now())}
	b.cfg = testConfig(t, closedPort(t))
	b.user = pgtest.CreateUser(t, b.db.Pool, "submitter@example.com", "correct horse")
	return b
}

func TestOfflinePassStopsAfterNetworkFailures(t *testing.T) {
	t.Parallel()
	b := offlineBundle(t)
	b.submit(t, "https://"+fakebandcamp.ArtistHost)
	b.addLabels(t, "https://one.bandcamp.com", "https://two.bandcamp.com", "https://three.bandcamp.com")
	c, err := New(b.db.Pool, b.cfg, testLogger(t), Options{MaxNetworkFailures: 2,
		Fetch: fetch.Options{Sleep: b.sleeper.Sleep, Now: b.sleeper.Now}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := c.RunOnce(context.Background(), nil)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("RunOnce error %v, want ErrStopped", err)
	}
	// The submission was the first failure, the first label the second:
	// the other two labels were never tried.
	if sum.StopReason != StopOffline || sum.Retried != 1 || sum.LabelsFailed != 1 || sum.LabelsCrawled != 0 || sum.QueueLeft != 1 {
		t.Errorf("summary %+v", sum)
	}
	r := b.runRow(t, sum.RunID)
	if r.Status != RunFailed || r.Summary.StopReason != StopOffline || !strings.Contains(r.Error, "could not be reached for 2 requests") {
		t.Errorf("recorded run %+v", r)
	}
	if q := b.queue(t)["https://"+fakebandcamp.ArtistHost]; q.Processed || q.Attempts != 1 {
		t.Errorf("queue row %+v: want it left unprocessed for the next pass", q)
	}
}

func TestOfflineBackoff(t *testing.T) {
	t.Parallel()
	want := []time.Duration{15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 12 * time.Hour, 12 * time.Hour}
	for i, w := range want {
		if got := offlineBackoff(i + 1); got != w {
			t.Errorf("offlineBackoff(%d) = %v, want %v", i+1, got, w)
		}
	}
}

// TestOfflineSchedulerIsQuietAndBacksOff runs the scheduler as
// `labelbase dev` configures it (config defaults, a demo catalogue, one
// submission) on a machine without network: its first pass stops after
// CRAWL_MAX_NETWORK_FAILURES, writes a handful of lines at INFO or above,
// and the next attempts back off, across a restart too.
func TestOfflineSchedulerIsQuietAndBacksOff(t *testing.T) {
	t.Parallel()
	b := offlineBundle(t)
	ctx := context.Background()
	// The daily pass is set half a day away: with the default 03:00 it
	// came before the backoff's waits whenever the test ran in the half
	// hour before it, and the test failed.
	cfg := configtest.New(t, map[string]string{"BANDCAMP_UPSTREAM": b.cfg.BandcampUpstream,
		"CRAWL_AT": time.Now().UTC().Add(12 * time.Hour).Format("15:04")})
	if _, err := demo.Load(ctx, b.db.Pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	b.submit(t, "https://"+fakebandcamp.ArtistHost)
	b.addLabels(t, "https://one.bandcamp.com", "https://two.bandcamp.com", "https://three.bandcamp.com",
		"https://four.bandcamp.com", "https://five.bandcamp.com")

	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	start := func() (waits chan time.Duration, fire chan time.Time, stop func()) {
		s := NewScheduler(b.db.Pool, cfg, log, Options{CatchUpDelay: time.Second,
			Fetch: fetch.Options{Sleep: b.sleeper.Sleep, Now: b.sleeper.Now}})
		waits, fire = make(chan time.Duration, 10), make(chan time.Time)
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
		return waits, fire, func() { cancel(); <-stopped }
	}

	waits, fire, stop := start()
	if d := <-waits; d != time.Second {
		t.Errorf("catch-up wait %v, want the shortened 1s", d)
	}
	fire <- time.Now()
	first := <-waits // the pass ran; this is the wait for the next one
	loud, debug := 0, 0
	lines := logs.Take()
	for _, l := range lines {
		if strings.Contains(l, "level=DEBUG") {
			debug++
		} else {
			loud++
		}
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			t.Errorf("alarming line offline: %s", l)
		}
	}
	if loud > 5 || debug == 0 {
		t.Errorf("first pass wrote %d lines at INFO or above (want at most 5) and %d at DEBUG:\n%s",
			loud, debug, strings.Join(lines, "\n"))
	}
	summary := ""
	for _, l := range lines {
		if strings.Contains(l, "crawl stopped early") {
			summary = l
		}
	}
	for _, want := range []string{"could not be reached for 3 requests", "labels_failed=2", "releases_added=0", "queue_left=1"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary line lacks %q: %q", want, summary)
		}
	}
	if first <= 10*time.Minute || first > 15*time.Minute {
		t.Errorf("wait after an unreachable pass %v, want about 15m", first)
	}
	fire <- time.Now()
	if second := <-waits; second <= 25*time.Minute || second > 30*time.Minute {
		t.Errorf("wait after the second unreachable pass %v, want about 30m", second)
	}
	stop()

	// A restart keeps backing off instead of catching up after a minute.
	waits, _, stop = start()
	if d := <-waits; d <= 25*time.Minute || d > 30*time.Minute {
		t.Errorf("catch-up wait after a restart %v, want about 30m", d)
	}
	stop()

	runs, err := History(ctx, b.db.Pool, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs recorded, want 2", len(runs))
	}
	for _, r := range runs {
		if r.Status != RunFailed || r.Summary.StopReason != StopOffline || !strings.Contains(r.Error, "could not be reached") {
			t.Errorf("run %+v", r)
		}
	}
	if n := b.count(t, `SELECT count(*) FROM public.labels WHERE crawled_at IS NOT NULL`); n != 0 {
		t.Errorf("%d labels marked crawled offline", n)
	}
}

// An offline `crawl --once` over fewer labels than MaxNetworkFailures never
// stops early, but it is no success: every request failed.
func TestOfflinePassTooShortToStopIsNotSucceeded(t *testing.T) {
	t.Parallel()
	b := offlineBundle(t)
	b.addLabels(t, "https://one.bandcamp.com")
	c := b.crawlerWith(t, testLogger(t), Options{})
	sum, err := c.RunOnce(context.Background(), nil)
	if !errors.Is(err, ErrStopped) || sum.StopReason != StopOffline || sum.Requests != 1 || sum.NetworkFailures != 1 {
		t.Fatalf("RunOnce = %v, %+v; want it failed as offline", err, sum)
	}
	r := b.runRow(t, sum.RunID)
	if r.Status != RunFailed || r.Summary.StopReason != StopOffline || r.Summary.NetworkFailures != 1 || !strings.Contains(r.Error, "every one of the 1 requests failed") {
		t.Errorf("recorded run %+v", r)
	}
	// Not every request failed: a success.
	b.addLabels(t, "https://two.bandcamp.com")
	if _, err := b.db.Pool.Exec(context.Background(), `UPDATE public.labels SET label_url = $1 WHERE label_url = 'https://two.bandcamp.com'`,
		"https://"+fakebandcamp.ArtistHost); err != nil {
		t.Fatal(err)
	}
	fake := fakebandcamp.New(t)
	b.cfg.BandcampUpstream = fake.URL
	fake.Handle("one.bandcamp.com", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	sum, err = b.crawlerWith(t, testLogger(t), Options{}).RunOnce(context.Background(), nil)
	if err != nil || sum.NetworkFailures != 1 || sum.Requests < 2 || b.runRow(t, sum.RunID).Status != RunSucceeded {
		t.Errorf("pass with one failure of several: %v, %+v", err, sum)
	}
}
