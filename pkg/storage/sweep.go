package storage

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/db"
)

// SweepAge is how old a temporary upload or an unreferenced blob must be
// before the sweep removes it: far longer than any upload's commit step,
// so a blob stored for a row about to commit is never taken.
const SweepAge = time.Hour

// Sweep removes what a crash can leave behind: unfinished uploads, and
// blobs no storage.objects row names (stored by a write whose transaction
// then failed, or replaced versions whose deletion was cut short).
// Several gateways may sweep at once; deleting a blob twice is harmless.
func (a *API) Sweep(ctx context.Context) (temps, blobs int, err error) {
	cutoff := a.now().Add(-SweepAge)
	if temps, err = a.be.SweepTemp(ctx, cutoff); err != nil {
		return 0, 0, err
	}
	var batch []string
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		live := map[string]bool{}
		err := db.AsCaller(ctx, a.pool, db.Caller{Role: "service_role", ReadOnly: true}, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT version FROM storage.objects WHERE version = ANY($1)`, batch)
			if err != nil {
				return err
			}
			names, err := pgx.CollectRows(rows, pgx.RowTo[string])
			for _, n := range names {
				live[n] = true
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, v := range batch {
			if !live[v] && a.be.Delete(ctx, v) == nil {
				blobs++
			}
		}
		batch = batch[:0]
		return nil
	}
	err = a.be.Walk(ctx, cutoff, func(version string) error {
		batch = append(batch, version)
		if len(batch) >= 500 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	return temps, blobs, err
}

// RunSweeps sweeps now and then every interval until ctx ends.
func (a *API) RunSweeps(ctx context.Context, every time.Duration) {
	for {
		temps, blobs, err := a.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			a.log.Warn("storage: sweep failed", "err", err)
		case temps+blobs > 0:
			a.log.Info("storage: swept what interrupted uploads left", "unfinished_uploads", temps, "blobs", blobs)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(every):
		}
	}
}
