package ingest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch/fetchtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

type testBundle struct {
	db      *pgtest.DB
	fake    *fakebandcamp.Server
	cfg     *config.Config
	sleeper *fetchtest.Clock
	user    string
}

// testConfig is production's defaults with the fake upstream, a test
// User-Agent and no gap between requests (the fake clock never sleeps).
func testConfig(t testing.TB, upstream string) *config.Config {
	return configtest.New(t, map[string]string{"BANDCAMP_UPSTREAM": upstream,
		"CRAWL_USER_AGENT": "LabelbaseTest/1.0 (+ingest tests)", "CRAWL_REQUEST_INTERVAL": "0s"})
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// setup gives a fresh database, a fake Bandcamp and a Crawler that never
// really sleeps.
func setup(t *testing.T) (*Crawler, *testBundle) {
	t.Helper()
	b := &testBundle{db: pgtest.New(t), fake: fakebandcamp.New(t), sleeper: fetchtest.NewClock(time.Now())}
	b.cfg = testConfig(t, b.fake.URL)
	b.user = pgtest.CreateUser(t, b.db.Pool, "submitter@example.com", "correct horse")
	return b.crawler(t), b
}

// crawler returns another Crawler on the same database and fake.
func (b *testBundle) crawler(t *testing.T) *Crawler {
	t.Helper()
	return b.crawlerWith(t, testLogger(t), Options{})
}

// crawlerWith returns a Crawler with opts (its clock replaced) logging to log.
func (b *testBundle) crawlerWith(t *testing.T, log *slog.Logger, opts Options) *Crawler {
	t.Helper()
	opts.Fetch.Sleep, opts.Fetch.Now = b.sleeper.Sleep, b.sleeper.Now
	c, err := New(b.db.Pool, b.cfg, log, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// submit queues urls as the web app does.
func (b *testBundle) submit(t *testing.T, urls ...string) {
	t.Helper()
	for _, u := range urls {
		if _, err := b.db.Pool.Exec(context.Background(),
			`INSERT INTO public.labels_to_add (label_url, is_processed, is_valid, user_id) VALUES ($1, false, false, $2)`,
			u, b.user); err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, c *Crawler) Summary {
	t.Helper()
	sum, err := c.RunOnce(context.Background(), nil)
	if err != nil {
		t.Fatalf("RunOnce: %v", err)
	}
	if sum.RunID == 0 {
		t.Error("RunOnce returned no run id")
	}
	sum.RunID = 0 // so tests can compare counters
	return sum
}

type queueRow struct {
	URL                    string
	Processed, Valid       bool
	Attempts               int
	Error                  string
	LabelURL               string
	ProcessedAt, AttemptAt bool
}

func (b *testBundle) queue(t *testing.T) map[string]queueRow {
	t.Helper()
	rows, err := b.db.Pool.Query(context.Background(), `
		SELECT q.label_url, q.is_processed, q.is_valid, q.attempts, coalesce(q.error, ''), coalesce(l.label_url, ''),
		       q.processed_at IS NOT NULL, q.last_attempt_at IS NOT NULL
		  FROM public.labels_to_add q LEFT JOIN public.labels l ON l.id = q.label_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]queueRow{}
	for rows.Next() {
		var r queueRow
		if err := rows.Scan(&r.URL, &r.Processed, &r.Valid, &r.Attempts, &r.Error, &r.LabelURL, &r.ProcessedAt, &r.AttemptAt); err != nil {
			t.Fatal(err)
		}
		out[r.URL] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (b *testBundle) count(t *testing.T, query string, args ...any) int {
	t.Helper()
	var n int
	if err := b.db.Pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// runRow reads one row of private.ingest_runs.
func (b *testBundle) runRow(t *testing.T, id int64) Run {
	t.Helper()
	runs, err := History(context.Background(), b.db.Pool, 1000)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("run %d not recorded", id)
	return Run{}
}
