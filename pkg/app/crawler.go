package app

import (
	"context"

	"github.com/labelbase/labelbase/pkg/ingest"
)

// startCrawler runs the daily ingest schedule in the background. With
// several gateway instances, an advisory lock lets one of them crawl.
func (a *App) startCrawler(ctx context.Context) {
	s := ingest.NewScheduler(a.Pools.Owner, a.Config, a.log, ingest.Options{OnRun: a.Metrics.CrawlRun,
		OnParseFailure: a.Metrics.CrawlParseFailure, LockPool: a.Pools.Session})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		s.Run(ctx)
	}()
}
