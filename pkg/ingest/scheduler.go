package ingest

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
)

// Scheduler runs a pass every day at cfg.CrawlAt (UTC). Every gateway may
// run one: the pass lock lets one crawl and the others skip that day.
//
// At start it catches up: when no pass has succeeded in the last
// CatchUpAge, it runs one after Options.CatchUpDelay (unless CrawlAt comes
// first). The check is repeated under the lock, so of several gateways
// starting together only one crawls.
//
// When passes stop because Bandcamp is unreachable (StopOffline), the next
// attempt waits offlineBackoff, doubling with each such pass in a row, so
// an offline gateway neither retries every minute nor waits a whole day
// once the network is back. Restarts do not reset the back-off: it is read
// from private.ingest_runs.
type Scheduler struct {
	pool *pgxpool.Pool
	cfg  *config.Config
	log  *slog.Logger
	opts Options
	// now and after are the clock; tests replace them.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	// poll is how often the wait for the next pass looks for "crawl now"
	// requests (private.crawl_requests, admin_request_crawl).
	poll time.Duration
}

// RequestPoll is how often a waiting Scheduler looks for crawl requests: an
// admin's "crawl now" starts within this long.
const RequestPoll = 10 * time.Second

// NewScheduler returns a Scheduler; Run starts it. opts, if given, tunes
// its Crawler and catch-up delay.
func NewScheduler(pool *pgxpool.Pool, cfg *config.Config, log *slog.Logger, opts ...Options) *Scheduler {
	s := &Scheduler{pool: pool, cfg: cfg, log: log.With("component", "ingest"), now: time.Now, after: time.After,
		poll: RequestPoll}
	if len(opts) > 0 {
		s.opts = opts[0]
	}
	if s.opts.RecrawlAfter == 0 {
		s.opts.RecrawlAfter = DefaultRecrawlAfter // a label once a day, whatever catches up
	}
	return s
}

// Run blocks until ctx is done, running a pass at each CrawlAt. With
// CrawlDisabled it only waits.
func (s *Scheduler) Run(ctx context.Context) {
	if s.cfg.CrawlDisabled {
		s.log.Info("daily crawl disabled (CRAWL_DISABLED)")
		<-ctx.Done()
		return
	}
	c, err := New(s.pool, s.cfg, s.log, s.opts)
	if err != nil {
		s.log.Error("daily crawl cannot start", "err", err)
		<-ctx.Done()
		return
	}
	if !s.catchUp(ctx, c) {
		return
	}
	for {
		next, err := nextRun(s.now(), s.cfg.CrawlAt)
		if err != nil {
			s.log.Error("daily crawl cannot be scheduled", "err", err)
			<-ctx.Done()
			return
		}
		retry := false
		if at, n := s.offlineRetry(ctx, c); n > 0 && at.Before(next) {
			next, retry = at, true
			s.log.Info("Bandcamp was unreachable; next crawl scheduled", "at", next, "unreachable_passes", n)
		} else {
			s.log.Info("next crawl scheduled", "at", next)
		}
		s.recordNext(ctx, next)
		req, ok := s.wait(ctx, s.after(next.Sub(s.now())))
		if !ok {
			return
		}
		if req != nil {
			_, err = c.RunRequested(ctx, req.labels)
		} else if retry {
			// Like a catch-up: skipped if another gateway got through.
			_, err = c.run(ctx, nil, s.now().Add(-CatchUpAge), scope{})
			if errors.Is(err, errFresh) {
				continue
			}
		} else {
			_, err = c.RunOnce(ctx, nil)
		}
		s.report(ctx, err)
	}
}

// request is what the claimed crawl requests ask for: labels nil means a
// full pass (at least one request named no label).
type request struct {
	labels []int64
}

// wait blocks until wake fires (nil) or admins' crawl requests are claimed;
// ok is false when ctx ended. Requests are claimed in one statement, so of
// several gateways only one runs the pass they ask for.
func (s *Scheduler) wait(ctx context.Context, wake <-chan time.Time) (req *request, ok bool) {
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, false
		case <-wake:
			return nil, true
		case <-tick.C:
			rows, _ := s.pool.Query(ctx, `UPDATE private.crawl_requests SET picked_up_at = now() WHERE picked_up_at IS NULL RETURNING label_id`)
			named, err := pgx.CollectRows(rows, pgx.RowTo[*int64])
			if err != nil {
				if ctx.Err() == nil {
					s.log.Error("cannot read crawl requests", "err", err)
				}
				continue
			}
			if len(named) == 0 {
				continue
			}
			req := &request{labels: []int64{}}
			for _, id := range named {
				if id == nil {
					req.labels = nil
					break
				}
				if !slices.Contains(req.labels, *id) {
					req.labels = append(req.labels, *id)
				}
			}
			s.log.Info("crawl requested by an admin; starting a pass", "requests", len(named), "labels", req.labels)
			return req, true
		}
	}
}

// recordNext stores when the next pass is planned, for admin_crawl_status.
func (s *Scheduler) recordNext(ctx context.Context, next time.Time) {
	if _, err := s.pool.Exec(ctx, `
		INSERT INTO private.crawl_schedule (id, next_at, updated_at) VALUES (true, $1, now())
		ON CONFLICT (id) DO UPDATE SET next_at = EXCLUDED.next_at, updated_at = now()`, next); err != nil && ctx.Err() == nil {
		s.log.Warn("cannot record the next crawl", "err", err)
	}
}

// Back-off after passes that found Bandcamp unreachable.
const (
	offlineBackoffBase = 15 * time.Minute
	offlineBackoffMax  = 12 * time.Hour
	// maxOfflineStreak bounds how far back the streak is read; past it the
	// back-off is at its cap anyway.
	maxOfflineStreak = 10
)

// offlineBackoff is how long after the n-th unreachable pass in a row the
// next one may start: 15 min, doubling, at most 12 h.
func offlineBackoff(n int) time.Duration {
	d := offlineBackoffBase
	for i := 1; i < n && d < offlineBackoffMax; i++ {
		d *= 2
	}
	return min(d, offlineBackoffMax)
}

// offlineRetry returns when to try again after the latest passes stopped
// unreachable, and how many did (0: the latest did not).
func (s *Scheduler) offlineRetry(ctx context.Context, c *Crawler) (time.Time, int) {
	n, last, err := c.store.offlineStreak(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("cannot read the crawl history", "err", err)
		}
		return time.Time{}, 0
	}
	if n == 0 {
		return time.Time{}, 0
	}
	return last.Add(offlineBackoff(n)), n
}

// catchUp runs the catch-up pass if one is due. It returns false when ctx
// ended.
func (s *Scheduler) catchUp(ctx context.Context, c *Crawler) bool {
	delay := s.opts.CatchUpDelay
	if delay <= 0 {
		delay = s.cfg.CrawlCatchUpDelay
	}
	if delay <= 0 {
		delay = DefaultCatchUpDelay
	}
	now := s.now()
	offline := 0
	if at, n := s.offlineRetry(ctx, c); n > 0 {
		delay, offline = max(delay, at.Sub(now)), n
	}
	last, ok, err := c.store.lastSucceeded(ctx)
	if err != nil {
		s.log.Error("cannot tell when the last crawl succeeded; no catch-up", "err", err)
		return ctx.Err() == nil
	}
	if !catchUpDue(last, ok, now) {
		return true
	}
	if next, err := nextRun(now, s.cfg.CrawlAt); err == nil && !now.Add(delay).Before(next) {
		return true // the daily pass comes first
	}
	attrs := []any{"in", delay.Round(time.Second)}
	if ok {
		attrs = append(attrs, "last_succeeded", last)
	}
	if offline > 0 {
		attrs = append(attrs, "unreachable_passes", offline)
	}
	s.log.Info("no crawl succeeded in the last day; catching up", attrs...)
	select {
	case <-ctx.Done():
		return false
	case <-s.after(delay):
	}
	_, err = c.run(ctx, nil, s.now().Add(-CatchUpAge), scope{})
	if errors.Is(err, errFresh) {
		s.log.Info("another gateway has caught up; skipped")
		if s.opts.OnRun != nil {
			s.opts.OnRun("skipped")
		}
		return ctx.Err() == nil
	}
	s.report(ctx, err)
	return ctx.Err() == nil
}

// catchUpDue reports whether a starting Scheduler should catch up, given
// when the last succeeded pass started (ok false: never).
func catchUpDue(last time.Time, ok bool, now time.Time) bool {
	return !ok || now.Sub(last) >= CatchUpAge
}

func (s *Scheduler) report(ctx context.Context, err error) {
	outcome := "succeeded"
	switch {
	case errors.Is(err, ErrBusy):
		s.log.Info("another gateway is crawling; skipped")
		outcome = "skipped"
	case errors.Is(err, ErrStopped):
		// The pass logged its summary and why it stopped.
		outcome = "stopped"
	case err != nil && ctx.Err() == nil:
		s.log.Error("crawl failed", "err", err)
		outcome = "failed"
	case err != nil:
		return // shutting down mid-pass: not an outcome
	}
	if s.opts.OnRun != nil {
		s.opts.OnRun(outcome)
	}
}

// nextRun is the first time after now at the UTC time of day at ("HH:MM").
func nextRun(now time.Time, at string) (time.Time, error) {
	t, err := time.Parse("15:04", at)
	if err != nil {
		return time.Time{}, err
	}
	now = now.UTC()
	next := time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC)
	if !next.After(now) {
		next = next.AddDate(0, 0, 1)
	}
	return next, nil
}
