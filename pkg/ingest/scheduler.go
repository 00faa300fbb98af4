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
type Scheduler struct {
	pool *pgxpool.Pool
	cfg  *config.Config
	log  *slog.Logger
	opts Options
	// now and after are the clock; tests replace them.
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}

// NewScheduler returns a Scheduler; Run starts it.
func NewScheduler(pool *pgxpool.Pool, cfg *config.Config, log *slog.Logger) *Scheduler {
	return &Scheduler{pool: pool, cfg: cfg, log: log.With("component", "ingest"), now: time.Now, after: time.After}
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
		switch _, err := c.RunOnce(ctx, nil); {
		case errors.Is(err, ErrBusy):
			s.log.Info("another gateway is crawling; skipped")
		case err != nil && ctx.Err() == nil:
			s.log.Error("crawl failed", "err", err)
		}
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
