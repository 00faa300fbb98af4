package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/ingest"
)

// runCrawl is `labelbase crawl`. With --once it runs one ingest pass (the
// submission queue, then every label's releases), showing progress on
// stderr and a summary on stdout. Without it, it runs the daily schedule in
// the foreground, as a gateway does in the background.
func runCrawl(ctx context.Context, cfg *config.Config, args []string, log *slog.Logger) error {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	once := fs.Bool("once", false, "run one pass now and exit")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{"crawl takes no arguments"}
	}
	if !*once && cfg.CrawlDisabled {
		return errors.New("crawl: CRAWL_DISABLED is set; use --once for a single pass")
	}
	pool, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	defer pool.Close()
	if err := pool.Ping(ctx); err != nil {
		return fmt.Errorf("crawl: connecting to the database: %w", err)
	}
	if !*once {
		ingest.NewScheduler(pool, cfg, log).Run(ctx)
		return nil
	}
	bar := newProgressBar(os.Stderr)
	sum, err := ingest.RunOnce(ctx, pool, cfg, log, bar.step)
	bar.finish()
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	printSummary(os.Stdout, sum)
	return nil
}

func printSummary(w io.Writer, s ingest.Summary) {
	fmt.Fprintf(w, "labels checked: %d (valid %d, invalid %d, to retry %d)\n", s.Checked, s.Valid, s.Invalid, s.Retried)
	fmt.Fprintf(w, "labels crawled: %d (unavailable %d)\n", s.LabelsCrawled, s.LabelsFailed)
	fmt.Fprintf(w, "releases: %d added, %d updated (%d pages unreadable, retried next run)\n",
		s.ReleasesAdded, s.ReleasesUpdated, s.ReleasePagesFailed)
}

// progressBar redraws one line per stage on a terminal and prints plain
// lines elsewhere (logs, CI), where carriage returns would be noise.
type progressBar struct {
	w    io.Writer
	tty  bool
	open bool // a bar line is drawn and not yet ended
}

func newProgressBar(f *os.File) *progressBar {
	fi, err := f.Stat()
	return &progressBar{w: f, tty: err == nil && fi.Mode()&os.ModeCharDevice != 0}
}

const barWidth = 30

func (p *progressBar) step(s ingest.Step) {
	if !p.tty {
		fmt.Fprintf(p.w, "crawl: %s %d/%d %s\n", s.Stage, s.Done, s.Total, s.Item)
		return
	}
	filled := barWidth * s.Done / max(s.Total, 1)
	item := s.Item
	if len(item) > 40 {
		item = "…" + item[len(item)-39:]
	}
	fmt.Fprintf(p.w, "\r\033[K%-6s [%s%s] %d/%d %s", s.Stage,
		strings.Repeat("=", filled), strings.Repeat(" ", barWidth-filled), s.Done, s.Total, item)
	p.open = s.Done < s.Total
	if !p.open {
		fmt.Fprintln(p.w)
	}
}

func (p *progressBar) finish() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
