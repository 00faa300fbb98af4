package rest

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
)

// result is the one row every main statement returns.
type result struct {
	total   *int64
	n       int64
	body    []byte
	headers string
	status  string
}

// txSpec is one request's transaction.
type txSpec struct {
	caller db.Caller
	stmt   *query.Statement
	// decide runs after the main statement; an error rolls back (e.g. a
	// singular response that did not get exactly one row).
	decide func(*result) error
	// rollback ends a write with ROLLBACK instead of COMMIT (tx=rollback).
	rollback bool
	// plan runs EXPLAIN of the statement; the result's body is the plan.
	plan *planSpec
	// foldable marks a write (to a table, or a call of a VOLATILE
	// function) whose only possible refusal after the statement is a
	// response GUC set by SQL (no singular representation, no strict
	// max-affected): it can commit in its own round trip.
	foldable bool
	// preRequest is the quoted name of PostgREST's db-pre-request
	// function, called after the setup and before the statement.
	preRequest string
	// prepared prepares statements once per connection; anonRole is the
	// role of requests without a token (both from the settings).
	prepared bool
	anonRole string
	// reads are the request settings the setup sends (db.SetupFor).
	reads db.Reads
	// guard sends gucGuardSQL after a folded write: off only when the
	// schema cache found nothing that could set a response GUC.
	guard bool
}

// acquireTimeout bounds the wait for a pooled connection.
const acquireTimeout = 10 * time.Second

// run executes the request in one transaction.
//
// A read is one round trip and no BEGIN/COMMIT: the setup and the main
// statement share the implicit transaction of one pipeline, which
// PostgreSQL commits at its Sync (the setup makes it read-only). So is a
// foldable write (pipeline.go, gucGuardSQL); any other write opens an
// explicit transaction so that, once its result is known to be
// answerable, a second round trip sends COMMIT or ROLLBACK.
//
// With prepared statements on (the default), the setup and every main
// statement are prepared once per connection, inside the pipeline of the
// request that first needs them; later requests only bind and execute.
func (a *API) run(ctx context.Context, s *txSpec) (*result, error) {
	if err := db.CheckRole(s.caller.Role, s.anonRole); err != nil {
		return nil, err
	}
	// A database restart kills pooled connections: a request that finds
	// its connection dead is run again on a fresh one while it is safe
	// (see retryable), waiting with backoff for at most DB_RETRY_WINDOW,
	// so a restart shorter than the window fails nothing.
	var deadline time.Time
	var wait time.Duration // the first retry goes at once, on fresh connections
	pool, replica := a.readPool(ctx, s)
	for {
		res, err := a.runOnce(ctx, s, pool)
		if err == nil {
			return res, nil
		}
		if a.onPrimaryInstead(replica, err) {
			pool, replica = a.pool, nil
			continue
		}
		safe, lost := retryable(err, s)
		if !lost {
			return nil, err
		}
		if !safe {
			// The statement (and for a folded write, its commit) may have
			// run: it must not be sent again, and nobody can say whether
			// it took effect.
			return nil, unavailable(err, "The database connection was lost while the request ran; whether its changes were committed is unknown.")
		}
		if deadline.IsZero() {
			deadline = time.Now().Add(a.cfg.DBRetryWindow)
			// The pool's other idle connections died with this one: close
			// them now rather than let each request find one dead.
			pool.Reset()
		}
		if a.cfg.DBRetryWindow == 0 || !time.Now().Add(wait).Before(deadline) {
			return nil, unavailable(err, "Could not connect with the database. Retrying the connection.")
		}
		a.log.WarnContext(ctx, "rest: database connection lost; retrying the request", "err", err, "wait_ms", wait.Milliseconds())
		t := time.NewTimer(jitter(wait))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(max(wait*2, retryFirstWait), retryMaxWait)
	}
}

// Backoff between attempts of a request whose connection was lost.
const (
	retryFirstWait = 50 * time.Millisecond
	retryMaxWait   = time.Second
)

// jitter spreads d over [d/2, d) so requests that lost their connections
// together do not come back together.
func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// retryAfterSeconds is what a 503 for a lost database asks clients to wait.
const retryAfterSeconds = "2"

// unavailable is PostgREST's 503 for a database it cannot reach, with
// Retry-After.
func unavailable(cause error, msg string) *apierr.Error {
	return apierr.New(http.StatusServiceUnavailable, pgrst.CodeConnection, "%s", msg).
		WithCause(cause).WithHeader("Retry-After", retryAfterSeconds)
}

// retryable classifies a failed attempt: lost says the connection (or the
// server) went away rather than the statement failing; safe says the
// request may run again: nothing reached the server, the server says it
// rolled our transaction back, or it was a read, whose transaction is
// read-only and ended with the connection.
func retryable(err error, s *txSpec) (safe, lost bool) {
	if !db.ConnectionLost(err) {
		return false, false
	}
	return db.NothingSent(err) || db.RolledBack(err) || s.caller.ReadOnly, true
}

// runOnce is one attempt of a request on one pooled connection.
func (a *API) runOnce(ctx context.Context, s *txSpec, pool *pgxpool.Pool) (*result, error) {
	conn, err := a.acquire(ctx, pool)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	if conn.Conn().PgConn().IsClosed() {
		return nil, db.ErrConnClosed
	}
	pc := conn.Conn().PgConn()
	res, err := a.runOn(ctx, pc, s)
	if err != nil && stalePlan(err) && !pc.IsClosed() {
		// A table changed shape under a prepared statement before the schema
		// reload reached us. PostgreSQL raises this before executing
		// anything, so running the request again on fresh statements is safe.
		if sc, ok := pc.CustomData()[stmtCacheKey].(*stmtCache); ok {
			sc.dropAll()
		}
		res, err = a.runOn(ctx, pc, s)
	}
	return res, err
}

// acquire takes a pooled connection. Like PostgREST's
// db-pool-acquisition-timeout, a saturated pool answers 504 PGRST003
// instead of queueing requests without bound; a database that cannot be
// reached in that time stays a connection error (503, retried by run).
func (a *API) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, acquireTimeout)
	conn, err := pool.Acquire(actx)
	cancel()
	var ce *pgconn.ConnectError
	if err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && !errors.As(err, &ce) {
		err = apierr.New(http.StatusGatewayTimeout, pgrst.CodePoolTimeout, "Timed out acquiring connection from connection pool.").WithCause(err)
	}
	return conn, err
}

// stalePlan reports PostgreSQL's refusal to run a prepared statement whose
// result row type changed since it was prepared.
// It also covers a statement the connection no longer has (26000), should
// a pooler have moved the session.
func stalePlan(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return (pe.Code == "0A000" && pe.Message == "cached plan must not change result type") || pe.Code == "26000"
}
