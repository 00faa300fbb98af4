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
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/ingest"
)

// runCrawl is `labelbase crawl`. With --once it runs one ingest pass (the
// submission queue, then every label's releases), showing progress on
// stderr and the run id and a summary on stdout. With --history it lists the
// last recorded passes. Without either, it runs the daily schedule in the
// foreground, as a gateway does in the background.
func runCrawl(ctx context.Context, cfg *config.Config, args []string, log *slog.Logger) error {
	return crawlCommand(ctx, cfg, args, os.Stdout, log)
}

// historySize is how many passes --history lists.
const historySize = 10

func crawlCommand(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	once := fs.Bool("once", false, "run one pass now and exit")
	history := fs.Bool("history", false, fmt.Sprintf("list the last %d passes and exit", historySize))
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{"crawl takes no arguments"}
	}
	if *once && *history {
		return usageError{"crawl: --once and --history do not go together"}
	}
	if !*once && !*history && cfg.CrawlDisabled {
		return errors.New("crawl: CRAWL_DISABLED is set; use --once for a single pass")
	}
	pool, lockPool, err := crawlPools(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	if lockPool != nil {
		defer lockPool.Close()
	}
	opts := ingest.Options{LockPool: lockPool}
	switch {
	case *history:
		runs, err := ingest.History(ctx, pool, historySize)
		if err != nil {
			return fmt.Errorf("crawl: %w", err)
		}
		printHistory(stdout, runs)
		return nil
	case !*once:
		ingest.NewScheduler(pool, cfg, log, opts).Run(ctx)
		return nil
	}
	bar := newProgressBar(os.Stderr)
	sum, err := ingest.RunOnce(ctx, pool, cfg, log, bar.step, opts)
	bar.finish()
	if sum.RunID != 0 {
		fmt.Fprintf(stdout, "run %d\n", sum.RunID)
	}
	if err != nil && !errors.Is(err, ingest.ErrStopped) {
		return fmt.Errorf("crawl: %w", err)
	}
	printSummary(stdout, sum)
	if err != nil {
		return fmt.Errorf("crawl: %w", err)
	}
	return nil
}

// crawlPools opens the crawler's pool on DATABASE_URL as the gateway opens
// its own (exec mode with DB_PREPARED_STATEMENTS=false, for a transaction
// pooler) and, with DATABASE_DIRECT_URL set, a pool there for the pass
// lock: a session-level advisory lock, which a transaction pooler would
// leave on whichever server connection took it.
func crawlPools(ctx context.Context, cfg *config.Config) (pool, lockPool *pgxpool.Pool, err error) {
	pool, err = db.OpenPool(ctx, cfg.DatabaseURL, cliPoolSize, !cfg.DBPreparedStatements)
	if err != nil {
		return nil, nil, fmt.Errorf("crawl: connecting to the database: %w", err)
	}
	if cfg.Replicas.DirectURL == "" {
		return pool, nil, nil
	}
	if lockPool, err = db.OpenPool(ctx, cfg.Replicas.DirectURL, 2, false); err != nil {
		pool.Close()
		return nil, nil, fmt.Errorf("crawl: connecting to DATABASE_DIRECT_URL: %w", err)
	}
	return pool, lockPool, nil
}

func printSummary(w io.Writer, s ingest.Summary) {
	fmt.Fprintf(w, "labels checked: %d (valid %d, invalid %d, to retry %d)\n", s.Checked, s.Valid, s.Invalid, s.Retried)
	fmt.Fprintf(w, "labels crawled: %d (unavailable %d)\n", s.LabelsCrawled, s.LabelsFailed)
	fmt.Fprintf(w, "releases: %d added, %d updated (%d pages unreadable, retried next run)\n",
		s.ReleasesAdded, s.ReleasesUpdated, s.ReleasePagesFailed)
	fmt.Fprintf(w, "requests: %d (network failures %d, parse failures %d; %d label pages unchanged)\n",
		s.Requests, s.NetworkFailures, s.ParseFailures, s.LabelsUnchanged)
	if s.ParseFailures > 0 {
		fmt.Fprintln(w, "pages not parsed are listed per label in private.label_parse_failures; their releases were kept")
	}
	fmt.Fprintf(w, "submissions left in the queue: %d\n", s.QueueLeft)
	if s.Stopped != "" {
		fmt.Fprintf(w, "stop reason: %s\n%s\n", s.StopReason, s.Stopped)
	}
}

// printHistory writes runs as a table, times in UTC.
func printHistory(w io.Writer, runs []ingest.Run) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "no crawl has run yet")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED (UTC)\tDURATION\tSTATUS\tCHECKED\tVALID\tINVALID\tRETRIED\tADDED\tUPDATED\tNET FAIL\tPARSE FAIL\tSTOP\tERROR")
	for _, r := range runs {
		dur := "-"
		if r.FinishedAt != nil {
			dur = r.FinishedAt.Sub(r.StartedAt).Round(time.Second).String()
		}
		msg := r.Error
		if rs := []rune(msg); len(rs) > 60 {
			msg = string(rs[:59]) + "…"
		}
		s := r.Summary
		stop := s.StopReason
		if stop == "" {
			stop = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", r.ID, r.StartedAt.UTC().Format("2006-01-02 15:04"),
			dur, r.Status, s.Checked, s.Valid, s.Invalid, s.Retried, s.ReleasesAdded, s.ReleasesUpdated,
			s.NetworkFailures, s.ParseFailures, stop, msg)
	}
	tw.Flush()
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
