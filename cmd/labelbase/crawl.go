package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/labelbase/labelbase/pkg/config"
)

// runCrawl is replaced by the ingest worker's command.
func runCrawl(ctx context.Context, cfg *config.Config, args []string, log *slog.Logger) error {
	return errors.New("crawl is not available yet")
}
