package app

import "context"

// startCrawler runs the daily ingest schedule in the background.
func (a *App) startCrawler(ctx context.Context) {
	_ = ctx // wired once pkg/ingest lands
}
