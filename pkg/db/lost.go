package db

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// ConnectionLost reports whether err means the database went away (it
// shut down or restarted, refused the connection, or the connection
// broke) rather than a statement failing. Such errors are outside the
// request: callers answer 503, never 500, and may try again.
func ConnectionLost(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// admin_shutdown, crash_shutdown, cannot_connect_now, class 08.
		return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || strings.HasPrefix(pe.Code, "08")
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || pgconn.SafeToRetry(err) || errors.Is(err, ErrConnClosed)
}

// ErrConnClosed is a pooled connection found closed before use.
var ErrConnClosed = errors.New("db: connection closed")

// NothingSent reports whether a failed attempt is known not to have
// reached the server (so running it again cannot repeat its effects).
func NothingSent(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || pgconn.SafeToRetry(err) || errors.Is(err, ErrConnClosed)
}

// RolledBack reports whether a lost connection's error says the server
// ended the session before our transaction could commit: a fast shutdown
// (pg_ctl stop/restart -m fast, pg_terminate_backend) stops each backend at
// its next interrupt check, which never falls inside a commit, and rolls
// back what it was doing. An immediate shutdown or a crash can stop a
// backend anywhere, commit included, so their errors do not count.
func RolledBack(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57P01" && pe.Message == "terminating connection due to administrator command"
}

// RetryOnPrimary reports whether a read that failed on a replica should
// run once more on the primary: the replica went away, recovery cancelled
// the query (a conflict with replay, 40001/40P01, or its database being
// dropped, 57P04), or the statement names something the replica has not
// replayed yet (a table, column, function or schema a migration just made).
func RetryOnPrimary(err error) bool {
	if ConnectionLost(err) {
		return true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01", "57P04", "42P01", "42703", "42883", "3F000", "42704":
		return true
	}
	return false
}
