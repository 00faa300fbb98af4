package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/ingest"
	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// `labelbase crawl --once` against the fake Bandcamp fills a fresh database.
func TestRunCrawlOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	fake := fakebandcamp.New(t)
	user := pgtest.CreateUser(t, db.Pool, "crawl@example.com", "correct horse")
	for _, u := range []string{"https://northmoor.bandcamp.com", "https://bandcamp.com/label/hollowpine",
		"https://tidewater.bandcamp.com", "https://lonefern.bandcamp.com", fakebandcamp.FanURL,
		"https://ghostlabel.bandcamp.com", "https://guarded.bandcamp.com"} {
		if _, err := db.Pool.Exec(ctx, `INSERT INTO public.labels_to_add (label_url, user_id) VALUES ($1, $2)`, u, user); err != nil {
			t.Fatal(err)
		}
	}
	cfg := configtest.New(t, map[string]string{"DATABASE_URL": db.URL, "BANDCAMP_UPSTREAM": fake.URL,
		"CRAWL_USER_AGENT": "LabelbaseTest/1.0 (+crawl command)", "CRAWL_REQUEST_INTERVAL": "0s"})
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))

	var out strings.Builder
	if err := crawlCommand(ctx, cfg, []string{"--once"}, &out, log); err != nil {
		t.Fatal(err)
	}
	var runID int64
	if _, err := fmt.Sscanf(out.String(), "run %d\n", &runID); err != nil || runID == 0 ||
		!strings.Contains(out.String(), "labels checked: 7 (valid 4, invalid 2, to retry 1)") ||
		!strings.Contains(out.String(), "submissions left in the queue: 1\n") {
		t.Errorf("--once printed %q; want the run id, then the summary", out.String())
	}

	var labels, releases, rich, valid, invalid, pending int
	err := db.Pool.QueryRow(ctx, `
		SELECT (SELECT count(*) FROM public.labels WHERE crawled_at IS NOT NULL),
		       (SELECT count(*) FROM public.releases),
		       (SELECT count(*) FROM public.releases WHERE rich),
		       (SELECT count(*) FROM public.labels_to_add WHERE is_processed AND is_valid AND label_id IS NOT NULL),
		       (SELECT count(*) FROM public.labels_to_add WHERE is_processed AND NOT is_valid AND error IS NOT NULL),
		       (SELECT count(*) FROM public.labels_to_add WHERE NOT is_processed AND attempts = 1)`).
		Scan(&labels, &releases, &rich, &valid, &invalid, &pending)
	if err != nil {
		t.Fatal(err)
	}
	// northmoor 22 (one hosted on an artist's subdomain), hollowpine 2,
	// tidewater 2, lonefern 1.
	if labels != 4 || releases != 27 || rich != 27 || valid != 4 || invalid != 2 || pending != 1 {
		t.Errorf("labels %d, releases %d (rich %d), queue valid %d invalid %d pending %d; want 4, 27 (27), 4, 2, 1",
			labels, releases, rich, valid, invalid, pending)
	}
	// --history lists it.
	out.Reset()
	if err := crawlCommand(ctx, cfg, []string{"--history"}, &out, log); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") ||
		!regexp.MustCompile(fmt.Sprintf(`^%d +\d{4}-\d\d-\d\d \d\d:\d\d +\S+ +succeeded +7 +4 +2 +1 +%d +0 +1 +0 +- *$`, runID, releases)).MatchString(lines[1]) {
		t.Errorf("--history printed:\n%s", out.String())
	}

	var customURL string
	if err := db.Pool.QueryRow(ctx, `SELECT label_url FROM public.labels WHERE label_name = 'Tidewater Audio'`).Scan(&customURL); err != nil ||
		customURL != "https://music.tidewater.example" {
		t.Errorf("custom-domain label URL = %q, %v", customURL, err)
	}
}

func TestProgressBar(t *testing.T) {
	t.Parallel()
	var tty, plain strings.Builder
	bars := []*progressBar{{w: &tty, tty: true}, {w: &plain}}
	for _, b := range bars {
		b.step(ingest.Step{Stage: ingest.StageQueue, Done: 1, Total: 2, Item: "https://northmoor.bandcamp.com"})
		b.finish()
	}
	if want := "\r\033[Kqueue  [===============               ] 1/2 https://northmoor.bandcamp.com\n"; tty.String() != want {
		t.Errorf("terminal output %q, want %q", tty.String(), want)
	}
	if want := "crawl: queue 1/2 https://northmoor.bandcamp.com\n"; plain.String() != want {
		t.Errorf("plain output %q, want %q", plain.String(), want)
	}
}

func TestRunCrawlFlags(t *testing.T) {
	t.Parallel()
	cfg := configtest.New(t, map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/none", "CRAWL_DISABLED": "true"})
	log := slog.New(slog.DiscardHandler)
	var ue usageError
	if err := runCrawl(context.Background(), cfg, []string{"--nope"}, log); !errors.As(err, &ue) {
		t.Errorf("unknown flag: err = %v, want a usage error", err)
	}
	if err := runCrawl(context.Background(), cfg, []string{"--once", "extra"}, log); !errors.As(err, &ue) {
		t.Errorf("extra argument: err = %v, want a usage error", err)
	}
	if err := runCrawl(context.Background(), cfg, []string{"--once", "--history"}, log); !errors.As(err, &ue) {
		t.Errorf("--once --history: err = %v, want a usage error", err)
	}
	if err := runCrawl(context.Background(), cfg, nil, log); err == nil {
		t.Error("the schedule started although CRAWL_DISABLED is set")
	}
}

func TestPrintHistory(t *testing.T) {
	t.Parallel()
	var empty, out strings.Builder
	printHistory(&empty, nil)
	if empty.String() != "no crawl has run yet\n" {
		t.Errorf("empty history: %q", empty.String())
	}
	start := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	end := start.Add(90 * time.Second)
	printHistory(&out, []ingest.Run{
		{ID: 2, StartedAt: start.Add(time.Hour), Status: ingest.RunRunning},
		{ID: 1, StartedAt: start, FinishedAt: &end, Status: ingest.RunFailed, Error: strings.Repeat("é", 70),
			Summary: ingest.Summary{Checked: 3, Retried: 3}},
	})
	want := "ID  STARTED (UTC)     DURATION  STATUS   CHECKED  VALID  INVALID  RETRIED  ADDED  UPDATED  NET FAIL  PARSE FAIL  STOP  ERROR\n" +
		"2   2026-03-01 04:00  -         running  0        0      0        0        0      0        0         0           -     \n" +
		"1   2026-03-01 03:00  1m30s     failed   3        0      0        3        0      0        0         0           -     " + strings.Repeat("é", 59) + "…\n"
	if out.String() != want {
		t.Errorf("history table:\n%s\nwant:\n%s", out.String(), want)
	}
}

// Behind a transaction pooler (DB_PREPARED_STATEMENTS=false, exec mode)
// `labelbase crawl --once` writes releases as well, and takes its pass
// lock on DATABASE_DIRECT_URL.
func TestRunCrawlOnceInExecMode(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	fake := fakebandcamp.New(t)
	user := pgtest.CreateUser(t, db.Pool, "crawl-exec@example.com", "correct horse")
	if _, err := db.Pool.Exec(ctx, `INSERT INTO public.labels_to_add (label_url, user_id) VALUES ($1, $2)`,
		"https://northmoor.bandcamp.com", user); err != nil {
		t.Fatal(err)
	}
	direct, err := url.Parse(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := direct.Query()
	q.Set("connect_timeout", "7")
	direct.RawQuery = q.Encode()
	cfg := configtest.New(t, map[string]string{"DATABASE_URL": db.URL, "BANDCAMP_UPSTREAM": fake.URL,
		"CRAWL_USER_AGENT": "LabelbaseTest/1.0 (+crawl command)", "CRAWL_REQUEST_INTERVAL": "0s",
		"DB_PREPARED_STATEMENTS": "false",
		// The direct URL differs from DATABASE_URL by a setting the test
		// can see on the pool made from it.
		"DATABASE_DIRECT_URL": direct.String(), "REST_DATABASE_URL": "postgres://authenticator@127.0.0.1:1/unused"})
	log := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	pool, lockPool, err := crawlPools(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if pool.Config().ConnConfig.DefaultQueryExecMode != pgx.QueryExecModeExec {
		t.Errorf("the crawler's pool is in %v mode, want exec", pool.Config().ConnConfig.DefaultQueryExecMode)
	}
	if lockPool == nil || lockPool.Config().ConnConfig.ConnectTimeout != 7*time.Second {
		t.Errorf("the pass lock's pool is not on DATABASE_DIRECT_URL")
	}
	pool.Close()
	if lockPool != nil {
		lockPool.Close()
	}
	var out strings.Builder
	if err := crawlCommand(ctx, cfg, []string{"--once"}, &out, log); err != nil {
		t.Fatalf("%v; printed %q", err, out.String())
	}
	var releases int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM public.releases`).Scan(&releases); err != nil || releases != 22 {
		t.Fatalf("releases %d, %v; want northmoor's 22", releases, err)
	}
}
