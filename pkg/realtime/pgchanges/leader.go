package pgchanges

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockKey is the session advisory lock of the replication leader
// ("lbpgchng"); advisory locks are per database, so each database has its
// own leader.
const lockKey int64 = 0x6c62706763686e67

// validPublication keeps the publication name safe to put in
// START_REPLICATION's option list.
var validPublication = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// errNothingPublished is lead's answer when the publication publishes no
// table: no subscription can be accepted (Check refuses every table
// outside it), so there is nothing to stream.
var errNothingPublished = errors.New("pgchanges: the publication publishes no table")

// leaderLoop tries, every leaderRetry, to become the leader and, once it
// is, replicates until the connection or the lock is lost, or until the
// publication no longer publishes any table.
func (s *Service) leaderLoop(ctx context.Context) {
	var lastErr string
	wait := leaderRetry
	for {
		err := s.Ready(ctx)
		if err == nil {
			err = s.lead(ctx)
		}
		if ctx.Err() != nil {
			return
		}
		// Log a reason once, not at every retry.
		msg := ""
		if err != nil {
			if msg = err.Error(); msg != lastErr {
				if errors.Is(err, errNothingPublished) {
					s.log.Info("postgres_changes: not replicating until a table is added to the publication",
						"publication", s.cfg.Publication)
				} else {
					s.log.Warn("postgres_changes: not replicating", "err", err)
				}
			}
		}
		lastErr = msg
		// A database that refuses (no replication privilege, no
		// publication) is asked less and less often, up to every 30 s.
		if err != nil && !errors.Is(err, errNothingPublished) {
			wait = min(2*wait, 30*time.Second)
		} else {
			wait = leaderRetry
		}
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		case <-time.After(wait):
		}
	}
}

// published reports whether the publication exists and whether it
// publishes at least one table (pg_publication_tables also expands FOR
// ALL TABLES and TABLES IN SCHEMA).
func (s *Service) published(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (exists, tables bool, err error) {
	err = q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_publication WHERE pubname = $1),
       EXISTS (SELECT 1 FROM pg_catalog.pg_publication_tables WHERE pubname = $1)`, s.cfg.Publication).Scan(&exists, &tables)
	if err != nil {
		return false, false, fmt.Errorf("pgchanges: %w", err)
	}
	return exists, tables, nil
}

// lead takes the leader lock on a direct session of its own (the lock
// lives as long as the session) and replicates while holding it. It
// returns nil when another gateway leads. While the publication publishes
// no table (the default: the app's own tables are not in it), nothing is
// replicated: no slot, no walsender decoding every transaction, and no
// keepalive per commit for the leader to read.
func (s *Service) lead(ctx context.Context) error {
	if !validPublication.MatchString(s.cfg.Publication) {
		return fmt.Errorf("pgchanges: publication name %q is not a plain identifier", s.cfg.Publication)
	}
	exists, tables, err := s.published(ctx, s.cfg.Pool)
	switch {
	case err != nil:
		return err
	case !exists:
		return fmt.Errorf("pgchanges: publication %s does not exist; postgres_changes delivers nothing", s.cfg.Publication)
	case !tables:
		return errNothingPublished
	}
	lockConn, err := pgx.Connect(ctx, s.cfg.DirectURL)
	if err != nil {
		return fmt.Errorf("pgchanges: leader lock: %w", err)
	}
	defer closeWithin(ctx, lockConn.Close) // closing the session drops the lock
	var got bool
	if err := lockConn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&got); err != nil {
		return fmt.Errorf("pgchanges: leader lock: %w", err)
	}
	if !got {
		return nil
	}
	s.log.Info("postgres_changes: this gateway is the replication leader")
	err = s.replicate(ctx, lockConn)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// streamWait bounds how long a join waits for a leader to stream: more
// than leaderRetry and a slot's creation, less than the join's 5 s for
// all its checks.
var streamWait = 3 * time.Second

// awaitStream returns once some gateway streams the publication's
// changes (its temporary slot is active), so that what a client changes
// after its join is answered reaches it. The leader does not stream while
// the publication is empty, so the first join after a table was added to
// it may come before any leader does: this gateway's leader loop is woken
// at once, another gateway's takes at most leaderRetry. After streamWait
// the join goes on, logged: changes arrive once a leader streams.
func (s *Service) awaitStream(ctx context.Context) {
	if s.leading.Load() {
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
	wait, cancel := context.WithTimeout(ctx, streamWait)
	defer cancel()
	for {
		var active bool
		err := s.cfg.Pool.QueryRow(wait, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_replication_slots
 WHERE slot_name LIKE 'labelbase\_realtime\_%' AND active)`).Scan(&active)
		if (err == nil && active) || s.leading.Load() {
			return
		}
		select {
		case <-wait.Done():
			if ctx.Err() == nil {
				s.log.Warn("postgres_changes: subscribed before any gateway streams the WAL", "waited", streamWait)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Ready is nil when the database can decode its WAL (wal_level=logical);
// otherwise its error says why, in words a client can be shown. The answer
// is cached for readyTTL.
func (s *Service) Ready(ctx context.Context) error {
	s.readyMu.Lock()
	defer s.readyMu.Unlock()
	if !s.readyAt.IsZero() && time.Since(s.readyAt) < readyTTL {
		return s.readyErr
	}
	var level string
	if err := s.cfg.Pool.QueryRow(ctx, "SELECT current_setting('wal_level')").Scan(&level); err != nil {
		// Not cached: a database that did not answer may answer next time.
		return errors.New("postgres_changes is unavailable: the database did not answer")
	}
	s.readyErr, s.readyAt = readyError(level), time.Now()
	return s.readyErr
}

// readyError is Ready's verdict on a wal_level.
func readyError(level string) error {
	if level == "logical" {
		return nil
	}
	return fmt.Errorf("postgres_changes is not available: the database runs with wal_level=%s "+
		"and needs wal_level=logical (broadcast and presence still work)", level)
}

// closeWithin closes a connection with a few seconds to say goodbye, also
// when ctx is already done.
func closeWithin(ctx context.Context, closeFn func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = closeFn(ctx)
}
