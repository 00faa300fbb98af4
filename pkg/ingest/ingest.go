// Package ingest turns submitted label URLs into labels and keeps every
// label's releases current, reading Bandcamp's public pages.
//
// A pass has two stages. The queue stage judges each unprocessed
// labels_to_add row: valid (a label is created or reused), invalid (a fan
// page, a 404, not Bandcamp) or retry (429, 5xx, a challenge page or a
// network error: never a reason to call a URL invalid). The release stage
// reads every label's /music page and fetches only the release pages it
// does not know yet. Passes run daily (Scheduler) or on demand (RunOnce);
// a PostgreSQL advisory lock keeps gateways from crawling at once.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// ErrBusy means another pass holds the lock; this one did nothing.
var ErrBusy = errors.New("ingest: another crawl is running")

// lockKey is the pg_try_advisory_lock key of a pass ("lbingest").
const lockKey int64 = 0x6c62696e67657374

// Stages reported to Progress.
const (
	StageQueue  = "queue"
	StageLabels = "labels"
)

// Step is one unit of progress: Done of Total items of Stage, Item being
// the URL just handled.
type Step struct {
	Stage       string
	Done, Total int
	Item        string
}

// Progress receives steps as a pass advances; nil is allowed.
type Progress func(Step)

// Summary counts what a pass did.
type Summary struct {
	// Checked queue rows, and how each was judged. Retried rows stay
	// unprocessed for a later pass.
	Checked, Valid, Invalid, Retried int
	// LabelsCrawled had their /music page read; LabelsFailed did not (their
	// releases are kept).
	LabelsCrawled, LabelsFailed    int
	ReleasesAdded, ReleasesUpdated int
	// ReleasePagesFailed could not be read; new ones are stored from the
	// grid and read again next pass.
	ReleasePagesFailed int
}

// LogValue lets a Summary be logged as one group.
func (s Summary) LogValue() slog.Value {
	return slog.GroupValue(
		slog.Int("checked", s.Checked), slog.Int("valid", s.Valid), slog.Int("invalid", s.Invalid),
		slog.Int("retried", s.Retried), slog.Int("labels_crawled", s.LabelsCrawled),
		slog.Int("labels_failed", s.LabelsFailed), slog.Int("releases_added", s.ReleasesAdded),
		slog.Int("releases_updated", s.ReleasesUpdated), slog.Int("release_pages_failed", s.ReleasePagesFailed))
}

// Options tunes a Crawler beyond config.Config. The zero value is the
// production setting.
type Options struct {
	// Fetch tunes the HTTP client (size cap, timeout, retries, clock).
	// UserAgent, Interval, Upstream and Log always come from New's
	// arguments.
	Fetch fetch.Options
}

// Crawler runs passes. One Crawler keeps its per-site request pacing
// across passes.
type Crawler struct {
	store  store
	log    *slog.Logger
	client *fetch.Client
}

// New returns a Crawler that reads and writes through pool, which must
// connect as the tables' owner (row-level security does not apply to it).
func New(pool *pgxpool.Pool, cfg *config.Config, log *slog.Logger, opts Options) (*Crawler, error) {
	fo := opts.Fetch
	fo.UserAgent, fo.Interval, fo.Upstream, fo.Log = cfg.CrawlUserAgent, cfg.CrawlRequestInterval, cfg.BandcampUpstream, log
	client, err := fetch.New(fo)
	if err != nil {
		return nil, fmt.Errorf("ingest: %w", err)
	}
	return &Crawler{store: store{pool}, log: log, client: client}, nil
}

// RunOnce runs one pass with the production options; see Crawler.RunOnce.
func RunOnce(ctx context.Context, pool *pgxpool.Pool, cfg *config.Config, log *slog.Logger, progress Progress) (Summary, error) {
	c, err := New(pool, cfg, log, Options{})
	if err != nil {
		return Summary{}, err
	}
	return c.RunOnce(ctx, progress)
}

// RunOnce processes the queue, then crawls every label. It returns ErrBusy
// at once when another pass, from any gateway, is running.
func (c *Crawler) RunOnce(ctx context.Context, progress Progress) (Summary, error) {
	unlock, err := c.store.lock(ctx)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	if progress == nil {
		progress = func(Step) {}
	}
	start := time.Now()
	p := &pass{Crawler: c, log: c.log.With("run", start.UTC().Format(time.RFC3339)), progress: progress,
		fresh: map[int64]visit{}}
	p.log.Info("crawl started")
	err = p.processQueue(ctx)
	if err == nil {
		err = p.crawlLabels(ctx)
	}
	if err != nil {
		p.log.Error("crawl stopped", "err", err, "summary", p.sum)
		return p.sum, err
	}
	p.log.Info("crawl finished", "summary", p.sum, "duration", time.Since(start).Round(time.Millisecond))
	return p.sum, nil
}

// pass is the state of one run.
type pass struct {
	*Crawler
	log      *slog.Logger
	progress Progress
	sum      Summary
	// fresh holds /music pages read by the queue stage, so the release
	// stage does not fetch them twice.
	fresh map[int64]visit
}

// allowFor returns the hosts a label's pages may be fetched from beyond
// Bandcamp's: its custom domain, which the account itself declared.
func allowFor(labelHost string) []string {
	if bandcamp.IsBandcampHost(labelHost) {
		return nil
	}
	return []string{labelHost}
}
