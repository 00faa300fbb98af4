package ingest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Run statuses in private.ingest_runs.
const (
	RunRunning   = "running"
	RunSucceeded = "succeeded"
	RunFailed    = "failed"
	RunSkipped   = "skipped"
)

// Run is one recorded pass.
type Run struct {
	ID         int64
	StartedAt  time.Time
	FinishedAt *time.Time
	Status     string
	// Summary of the pass; Summary.StopReason, NetworkFailures and
	// ParseFailures come from the row, the other fields that the row does
	// not keep are zero.
	Summary Summary
	Error   string
}

// startRun records a pass that holds the lock. Since it does, any row
// still marked running belongs to a pass that died; it is closed as failed
// in the same statement.
func (s store) startRun(ctx context.Context) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		WITH orphaned AS (
		  UPDATE private.ingest_runs
		     SET status = 'failed', finished_at = now(), error = 'interrupted: the process ended mid-pass'
		   WHERE status = 'running')
		INSERT INTO private.ingest_runs DEFAULT VALUES RETURNING id`).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("ingest: record run: %w", err)
	}
	return id, nil
}

// skipRun records a pass that found the lock taken.
func (s store) skipRun(ctx context.Context, reason string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `
		INSERT INTO private.ingest_runs (status, finished_at, error) VALUES ('skipped', now(), $1) RETURNING id`,
		reason).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("ingest: record run: %w", err)
	}
	return id, nil
}

// finishRun records how a pass ended. It runs even when ctx is cancelled,
// so an interrupted pass is still closed.
func (s store) finishRun(ctx context.Context, id int64, status string, sum Summary, reason string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var errText *string
	if reason != "" {
		errText = &reason
	}
	var stopReason *string
	if sum.StopReason != "" {
		stopReason = &sum.StopReason
	}
	_, err := s.pool.Exec(ctx, `
		UPDATE private.ingest_runs
		   SET finished_at = now(), status = $2, error = $3,
		       labels_checked = $4, labels_valid = $5, labels_invalid = $6, labels_retried = $7,
		       releases_added = $8, releases_updated = $9, stop_reason = $10,
		       network_failures = $11, parse_failures = $12
		 WHERE id = $1`,
		id, status, errText, sum.Checked, sum.Valid, sum.Invalid, sum.Retried, sum.ReleasesAdded, sum.ReleasesUpdated,
		stopReason, sum.NetworkFailures, sum.ParseFailures)
	if err != nil {
		return fmt.Errorf("ingest: record end of run %d: %w", id, err)
	}
	return nil
}

// lastSucceeded returns when the latest succeeded pass started; ok is
// false when none has.
func (s store) lastSucceeded(ctx context.Context) (at time.Time, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT started_at FROM private.ingest_runs WHERE status = 'succeeded' ORDER BY started_at DESC LIMIT 1`).Scan(&at)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return time.Time{}, false, nil
	case err != nil:
		return time.Time{}, false, fmt.Errorf("ingest: read last run: %w", err)
	}
	return at, true, nil
}

// History returns the latest limit recorded passes, newest first.
func History(ctx context.Context, pool *pgxpool.Pool, limit int) ([]Run, error) {
	rows, _ := pool.Query(ctx, `
		SELECT id, started_at, finished_at, status, labels_checked, labels_valid, labels_invalid, labels_retried,
		       releases_added, releases_updated, coalesce(error, ''), coalesce(stop_reason, ''),
		       network_failures, parse_failures
		  FROM private.ingest_runs ORDER BY id DESC LIMIT $1`, limit)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (run Run, err error) {
		s := &run.Summary
		err = r.Scan(&run.ID, &run.StartedAt, &run.FinishedAt, &run.Status, &s.Checked, &s.Valid, &s.Invalid, &s.Retried,
			&s.ReleasesAdded, &s.ReleasesUpdated, &run.Error, &s.StopReason, &s.NetworkFailures, &s.ParseFailures)
		return run, err
	})
	if err != nil {
		return nil, fmt.Errorf("ingest: read run history: %w", err)
	}
	return out, nil
}

// offlineStreak returns how many of the latest recorded passes in a row
// (skipped ones aside) stopped because Bandcamp was unreachable, and when
// the latest of them started. The scheduler backs off by it.
func (s store) offlineStreak(ctx context.Context) (n int, last time.Time, err error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT started_at, coalesce(stop_reason, '') = 'offline'
		  FROM private.ingest_runs WHERE status IN ('succeeded', 'failed') ORDER BY id DESC LIMIT $1`, maxOfflineStreak)
	defer rows.Close()
	for rows.Next() {
		var at time.Time
		var offline bool
		if err := rows.Scan(&at, &offline); err != nil {
			return 0, time.Time{}, fmt.Errorf("ingest: read run history: %w", err)
		}
		if !offline {
			break
		}
		if n == 0 {
			last = at
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return 0, time.Time{}, fmt.Errorf("ingest: read run history: %w", err)
	}
	return n, last, nil
}
