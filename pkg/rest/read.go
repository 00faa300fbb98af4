package rest

// Reads of tables and views (GET, HEAD).

import (
	"net/http"

	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
	"github.com/labstack/echo/v5"
)

func (a *API) read(c *echo.Context, rc *reqCtx, t *schema.Table, pairs []query.Pair, req *query.Request) error {
	off, lim, err := page(req.Root(), rc.r.Header, true, rc.set.MaxRows)
	if err != nil {
		return err
	}
	o := query.ReadOpts{Count: rc.prefs.count != "", Planned: rc.prefs.count == "planned", EstimateAbove: rc.estimateAbove(), Head: rc.r.Method == http.MethodHead, StripNulls: rc.strip, Format: rc.format(), Limit: lim, Offset: &off}
	st, err := a.readStatement(rc, t, pairs, req, o)
	if err != nil {
		return err
	}
	res, err := a.exec(rc, a.spec(rc, true, st, nil))
	if err != nil {
		return err
	}
	if rc.plan != nil {
		return respondPlan(c, rc, res)
	}
	return a.respondRows(c, rc, res, off, false)
}
