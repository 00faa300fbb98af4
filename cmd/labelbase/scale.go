package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/labelbase/labelbase/pkg/scale"
)

// runScale backs `go tool task db:large`: it fills DATABASE_URL with the
// scale dataset (unless present) and prints each procedure's timing.
// --releases grows the catalogue (e.g. to 4000000 to measure the doubled
// dataset); --calls sets how many calls each procedure's figures are over;
// --only measures the calls whose name contains it.
func runScale(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("scale", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	releases := fs.Int("releases", scale.Large.Labels*scale.Large.ReleasesPerLabel, "releases in the catalogue (spread evenly over the labels)")
	calls := fs.Int("calls", scale.DefaultCalls, "calls per procedure")
	only := fs.String("only", "", "measure only the procedure calls whose name contains this")
	if err := fs.Parse(args); err != nil {
		return usageError{fmt.Sprintf("scale: %v", err)}
	}
	size := scale.Large
	if *releases < size.Labels || *calls < 1 {
		return usageError{fmt.Sprintf("scale: --releases must be at least %d and --calls at least 1", size.Labels)}
	}
	size.ReleasesPerLabel = *releases / size.Labels
	u, err := databaseURL(log)
	if err != nil {
		return err
	}
	if err := migrateUp(u, log); err != nil {
		return err
	}
	pool, err := openPool(ctx, log)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := scale.Generate(ctx, pool, size, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\n%d calls per procedure, a different user and page on each\n\n", *calls)
	fmt.Fprintln(stdout, "| procedure call | p50 | p95 | EXPLAIN ANALYZE (1st call) | nested plans | Seq Scan on releases |\n|---|---|---|---|---|---|")
	_, err = scale.Report(ctx, u, *calls, *only, stdout)
	return err
}
