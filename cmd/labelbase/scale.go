package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/labelbase/labelbase/pkg/scale"
)

// runScale backs `go tool task db:large`: it fills DATABASE_URL with the
// scale dataset (unless present) and prints each procedure's timing.
func runScale(ctx context.Context, stdout io.Writer, log *slog.Logger) error {
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
	if err := scale.Generate(ctx, pool, scale.Large, stdout); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "\n| procedure call | best of 5 (client) | EXPLAIN ANALYZE | nested plans | Seq Scan on releases |\n|---|---|---|---|---|")
	_, err = scale.Report(ctx, u, stdout)
	return err
}
