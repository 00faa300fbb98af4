package rest

import (
	"context"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/db"
)

// readPool picks where a request runs: a GET or HEAD (tables and rpc,
// always read-only) goes to a healthy replica that has replayed the
// caller's last write (db.ReadAfter), everything else to the primary.
func (a *API) readPool(ctx context.Context, s *txSpec) (*pgxpool.Pool, *db.Replica) {
	if !a.router.HasReplicas() || !s.caller.ReadOnly ||
		(s.caller.Method != http.MethodGet && s.caller.Method != http.MethodHead) {
		return a.pool, nil
	}
	r := a.router.Pick(db.ReadAfter(ctx))
	if r == nil {
		return a.pool, nil
	}
	return r.Pool(), r
}

// onPrimaryInstead reports whether a read that failed on replica r runs
// once more on the primary (db.RetryOnPrimary, or r's pool was saturated),
// taking r out of rotation if it went away.
func (a *API) onPrimaryInstead(r *db.Replica, err error) bool {
	if r == nil {
		return false
	}
	a.router.Failed(r, err)
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae.Status == http.StatusGatewayTimeout
	}
	if db.RetryOnPrimary(err) {
		a.log.Warn("rest: read failed on a replica; running it on the primary", "replica", r.Name, "err", err)
		return true
	}
	return false
}
