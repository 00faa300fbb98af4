package ingest

import (
	"context"
	"errors"
	"log/slog"
	"time"

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
type Scheduler struct {
	pool *pgxpool.Pool
	cfg  *config.Config
	log  *slog.Logger
	opts Options
	// now and after are the clock; tests replace them.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// NewScheduler returns a Scheduler; Run starts it. opts, if given, tunes
// its Crawler and catch-up delay.
func NewScheduler(pool *pgxpool.Pool, cfg *config.Config, log *slog.Logger, opts ...Options) *Scheduler {
	s := &Scheduler{pool: pool, cfg: cfg, log: log.With("component", "ingest"), now: time.Now, after: time.After}
	if len(opts) > 0 {
		s.opts = opts[0]
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
		s.log.Info("next crawl scheduled", "at", next)
		select {
		case <-ctx.Done():
			return
		case <-s.after(next.Sub(s.now())):
		}
		_, err = c.RunOnce(ctx, nil)
		s.report(ctx, err)
	}
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
	attrs := []any{"in", delay}
	if ok {
		attrs = append(attrs, "last_succeeded", last)
	}
	s.log.Info("no crawl succeeded in the last day; catching up", attrs...)
	select {
	case <-ctx.Done():
		return false
	case <-s.after(delay):
	}
	_, err = c.run(ctx, nil, s.now().Add(-CatchUpAge))
	if errors.Is(err, errFresh) {
		s.log.Info("another gateway has caught up; skipped")
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
	switch {
	case errors.Is(err, ErrBusy):
		s.log.Info("another gateway is crawling; skipped")
	case errors.Is(err, ErrStopped):
		s.log.Warn("crawl stopped early", "err", err)
	case err != nil && ctx.Err() == nil:
		s.log.Error("crawl failed", "err", err)
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
