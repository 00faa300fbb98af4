// Package ingest turns submitted label URLs into labels and keeps every
// label's releases current, reading Bandcamp's public pages.
//
// A pass has two stages. The queue stage judges each unprocessed
// labels_to_add row: valid (a label is created or reused), invalid (a fan
// page, a 404, not Bandcamp) or retry (429, 5xx, a challenge page or a
// network error: never a reason to call a URL invalid). The release stage
// reads every label's /music page and fetches only the release pages it
// does not know yet. Passes run daily (Scheduler) or on demand (RunOnce);
// a PostgreSQL advisory lock keeps gateways from crawling at once. Every
// pass is recorded in private.ingest_runs; a pass stops early when Bandcamp
// keeps refusing requests (Options.MaxPushback) or cannot be reached at all
// (Options.MaxNetworkFailures). Demo labels (private.demo_labels) are never
// crawled.
//
// Logging: a pass writes one INFO line when it starts and one when it ends
// (with its Summary); everything per label, page or retry is DEBUG.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// ErrBusy means another pass holds the lock; this one did nothing but
// record itself as skipped.
var ErrBusy = errors.New("ingest: another crawl is running")

// ErrStopped means Bandcamp kept refusing requests (challenge pages, or
// 429s that outlasted the back-off) or could not be reached, so the pass
// stopped early and left the rest of its work for the next one.
// Summary.Stopped says why, Summary.StopReason which of the two.
var ErrStopped = errors.New("ingest: pass stopped early")

// errFresh means a catch-up pass found a recent succeeded pass under the
// lock and did nothing.
var errFresh = errors.New("ingest: a recent pass succeeded")

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
	// RunID is the pass's row in private.ingest_runs (0 if unrecorded).
	RunID int64
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
	// Requests is how many pages the pass asked Bandcamp for.
	// NetworkFailures of them got no usable answer (no reply, a refusal,
	// a 5xx); ParseFailures were served but could not be parsed (see
	// failures.go). A pass whose every request failed is not a success.
	Requests, NetworkFailures, ParseFailures int
	// LabelsUnchanged answered a conditional request with 304.
	LabelsUnchanged int
	// Stopped is why the pass stopped early, leaving queue rows and labels
	// for the next pass; empty when it ran to the end.
	Stopped string
	// StopReason is StopRefused or StopOffline when the pass stopped early.
	StopReason string
	// QueueLeft is how many submissions were still unprocessed at the end.
	QueueLeft int
}

// Values of Summary.StopReason (and private.ingest_runs.stop_reason).
const (
	// StopRefused: Bandcamp refused MaxPushback requests in a row.
	StopRefused = "refused"
	// StopOffline: MaxNetworkFailures requests in a row could not reach
	// Bandcamp at all (DNS, connection, TLS), or every request of a pass
	// too short to reach that count failed so.
	StopOffline = "offline"
	// StopAllFailed: the pass ran to its end but every request it made
	// failed (not fetched or not parsed), not all of them for want of a
	// network.
	StopAllFailed = "all_failed"
)

// LogValue lets a Summary be logged as one group.
func (s Summary) LogValue() slog.Value {
	attrs := []slog.Attr{slog.Int64("run_id", s.RunID),
		slog.Int("checked", s.Checked), slog.Int("valid", s.Valid), slog.Int("invalid", s.Invalid),
		slog.Int("retried", s.Retried), slog.Int("labels_crawled", s.LabelsCrawled),
		slog.Int("labels_failed", s.LabelsFailed), slog.Int("releases_added", s.ReleasesAdded),
		slog.Int("releases_updated", s.ReleasesUpdated), slog.Int("release_pages_failed", s.ReleasePagesFailed),
		slog.Int("requests", s.Requests), slog.Int("network_failures", s.NetworkFailures),
		slog.Int("parse_failures", s.ParseFailures), slog.Int("labels_unchanged", s.LabelsUnchanged),
		slog.Int("queue_left", s.QueueLeft)}
	if s.Stopped != "" {
		attrs = append(attrs, slog.String("stopped", s.Stopped))
	}
	return slog.GroupValue(attrs...)
}

// Options tunes a Crawler beyond config.Config. The zero value is the
// production setting.
type Options struct {
	// Fetch tunes the HTTP client (size cap, timeout, retries, clock).
	// UserAgent, Interval, Upstream and Log always come from New's
	// arguments.
	Fetch fetch.Options
	// MaxPushback is how many requests in a row Bandcamp may refuse (a
	// challenge page, or a 429 that outlasted the back-off) before the
	// pass stops (default 3).
	MaxPushback int
	// MaxNetworkFailures is how many requests in a row may fail to reach
	// Bandcamp (DNS failure, connection refused, no route, TLS failure),
	// each after its own retries, before the pass stops (default 3). Without
	// it an offline gateway would try every label of the catalogue in turn.
	MaxNetworkFailures int
	// CatchUpDelay is how long after start a Scheduler runs a catch-up
	// pass when none succeeded in the last day (default 1 minute), so a
	// restart loop cannot hammer Bandcamp.
	CatchUpDelay time.Duration
	// OnRun, when set, is told how each scheduled pass ended: succeeded,
	// stopped (Bandcamp refused or was unreachable, or every request
	// failed), skipped (another gateway held the lock) or failed (metrics).
	OnRun func(outcome string)
	// OnParseFailure, when set, is told of every page that could not be
	// parsed, by kind (PageLabel, PageRelease) (metrics).
	OnParseFailure func(page string)
	// RecrawlAfter leaves out of a pass the labels crawled less than this
	// long ago, so that a catch-up or retry pass does not read again what
	// the day's pass just read. Zero crawls every label (RunOnce, `crawl
	// --once`); the Scheduler defaults it to DefaultRecrawlAfter. Negative
	// is the same as zero.
	RecrawlAfter time.Duration
	// LockPool, when set, holds the pass lock instead of the crawler's
	// pool: a direct connection when that pool goes through a transaction
	// pooler, where a session-level advisory lock does not stick.
	LockPool *pgxpool.Pool
}

// Defaults of Options.
const (
	DefaultMaxPushback        = 3
	DefaultMaxNetworkFailures = 3
	DefaultCatchUpDelay       = time.Minute
	// CatchUpAge is how old the last succeeded pass may be before a
	// starting Scheduler catches up.
	CatchUpAge = 24 * time.Hour
	// DefaultRecrawlAfter is the scheduler's RecrawlAfter: shorter than a
	// day, so a label is read once a day even when passes start at
	// slightly different times.
	DefaultRecrawlAfter = 20 * time.Hour
)

// Crawler runs passes. One Crawler keeps its per-site request pacing
// across passes.
type Crawler struct {
	store       store
	log         *slog.Logger
	client      *fetch.Client
	maxPushback int
	maxOffline  int
	// onParseFailure and recrawlAfter are Options'.
	onParseFailure func(page string)
	recrawlAfter   time.Duration
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
	if opts.MaxPushback <= 0 {
		opts.MaxPushback = cfg.CrawlMaxRefusals
	}
	if opts.MaxPushback <= 0 {
		opts.MaxPushback = DefaultMaxPushback
	}
	if opts.MaxNetworkFailures <= 0 {
		opts.MaxNetworkFailures = cfg.CrawlMaxNetworkFailures
	}
	if opts.MaxNetworkFailures <= 0 {
		opts.MaxNetworkFailures = DefaultMaxNetworkFailures
	}
	return &Crawler{store: store{pool: pool, lockPool: opts.LockPool}, log: log, client: client, maxPushback: opts.MaxPushback,
		maxOffline: opts.MaxNetworkFailures, onParseFailure: opts.OnParseFailure, recrawlAfter: opts.RecrawlAfter}, nil
}

// RunOnce runs one pass with the production options; see Crawler.RunOnce.
func RunOnce(ctx context.Context, pool *pgxpool.Pool, cfg *config.Config, log *slog.Logger, progress Progress, opts ...Options) (Summary, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	c, err := New(pool, cfg, log, o)
	if err != nil {
		return Summary{}, err
	}
	return c.RunOnce(ctx, progress)
}

// RunOnce processes the queue, then crawls every label, recording the pass
// in private.ingest_runs (Summary.RunID). It returns ErrBusy at once, having
// recorded a skipped pass, when another pass, from any gateway, is running,
// and ErrStopped (wrapped) when Bandcamp made it stop early.
func (c *Crawler) RunOnce(ctx context.Context, progress Progress) (Summary, error) {
	return c.run(ctx, progress, time.Time{}, scope{})
}

// RunRequested runs the pass admins asked for: over the given labels only
// (the queue waits for the next full pass), or, with labels nil, a full
// pass. Either way labels are read even when read recently (Options'
// RecrawlAfter does not apply).
func (c *Crawler) RunRequested(ctx context.Context, labels []int64) (Summary, error) {
	return c.run(ctx, nil, time.Time{}, scope{labels: labels, force: true})
}

// run is RunOnce. With staleBefore set it is a catch-up: under the lock, it
// returns errFresh, recording nothing, if a pass that started after
// staleBefore has succeeded.
func (c *Crawler) run(ctx context.Context, progress Progress, staleBefore time.Time, sc scope) (Summary, error) {
	unlock, err := c.store.lock(ctx)
	if errors.Is(err, ErrBusy) {
		id, rerr := c.store.skipRun(ctx, "another crawl was running")
		if rerr != nil {
			c.log.Error("skipped crawl not recorded", "err", rerr)
		}
		return Summary{RunID: id}, err
	}
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	if !staleBefore.IsZero() {
		last, ok, err := c.store.lastSucceeded(ctx)
		if err != nil {
			return Summary{}, err
		}
		if ok && last.After(staleBefore) {
			return Summary{}, errFresh
		}
	}
	id, err := c.store.startRun(ctx)
	if err != nil {
		return Summary{}, err
	}
	if progress == nil {
		progress = func(Step) {}
	}
	start := time.Now()
	p := &pass{Crawler: c, log: c.log.With("run", id), progress: progress,
		fresh: map[int64]visit{}, sum: Summary{RunID: id}, scope: sc}
	p.log.Info("crawl started")
	if sc.labels == nil {
		err = p.processQueue(ctx)
	}
	if err == nil && !p.stopped() {
		err = p.crawlLabels(ctx)
	}
	if err == nil {
		p.judgeFailures()
	}
	p.logParseFailures(ctx)
	status, reason := RunSucceeded, ""
	switch {
	case err != nil:
		status, reason = RunFailed, err.Error()
	case p.stopped():
		status, reason = RunFailed, p.sum.Stopped
		err = fmt.Errorf("%w: %s", ErrStopped, p.sum.Stopped)
	}
	if left, qerr := c.store.pendingCount(context.WithoutCancel(ctx)); qerr == nil {
		p.sum.QueueLeft = left
	}
	ferr := c.store.finishRun(ctx, id, status, p.sum, reason)
	if ferr != nil {
		err = errors.Join(err, ferr)
	}
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case ferr == nil && errors.Is(err, ErrStopped):
		// Offline is a bad day, not a fault: INFO. Refusals may call for
		// a longer CRAWL_REQUEST_INTERVAL: WARN. Either way one line.
		level, msg := slog.LevelInfo, "crawl stopped early"
		switch p.sum.StopReason {
		case StopRefused:
			level = slog.LevelWarn
		case StopAllFailed:
			level, msg = slog.LevelWarn, "crawl failed: every request failed"
		}
		p.log.Log(ctx, level, msg, "summary", p.sum, "duration", took)
	case err != nil:
		p.log.Error("crawl failed", "err", err, "summary", p.sum)
	default:
		p.log.Info("crawl finished", "summary", p.sum, "duration", took)
	}
	return p.sum, err
}
