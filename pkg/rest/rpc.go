package rest

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// rpc calls /rpc/<fn>: POST with a JSON body of named arguments, GET and
// HEAD with arguments in the query string (rpcargs.go). STABLE and
// IMMUTABLE functions run read-only; GET and HEAD always do, so a function
// that writes answers 405 there (25006), as with PostgREST.
func (a *API) rpc(c *echo.Context) error {
	r := c.Request()
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	case http.MethodOptions:
		c.Response().Header().Set("Allow", "OPTIONS,GET,HEAD,POST")
		return c.NoContent(http.StatusOK)
	default:
		return apierr.New(http.StatusMethodNotAllowed, pgrst.CodeRPCMethod, "Cannot use the %s method on RPC", r.Method)
	}
	rc, err := a.begin(c, false)
	if err != nil {
		return err
	}
	pairs, err := query.SplitQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	in, err := a.readRPCArgs(c, pairs)
	if err != nil {
		return err
	}
	call, req, err := in.call(rc.sc, rc.schema, c.Param("fn"), pairs)
	if err != nil {
		return err
	}
	off, lim, err := page(req.Root(), r.Header, !in.Post, rc.set.MaxRows)
	if err != nil {
		return err
	}
	o := query.ReadOpts{Count: rc.prefs.count != "", Planned: rc.prefs.count == "planned", EstimateAbove: rc.estimateAbove(), Head: r.Method == http.MethodHead, StripNulls: rc.strip, Format: rc.formatIf(call.Func.RetSet), Limit: lim, Offset: &off}
	st, err := a.rpcStatement(rc, call, req, pairs, in.Post, o)
	if err != nil {
		return err
	}
	f := call.Func
	if rc.prefs.strictMax() != nil && !f.RetSet {
		return apierr.New(http.StatusBadRequest, pgrst.CodeMaxAffectedRPC, "Function must return SETOF or TABLE when max-affected preference is used with handling=strict")
	}
	readOnly := !in.Post || f.Volatility != "v"
	var decide func(*result) error
	if !readOnly || rc.prefs.strictMax() != nil {
		decide = func(res *result) error {
			if err := checkMaxAffected(rc, res); err != nil {
				return err
			}
			if rc.media == mediaObject && f.RetSet && res.n != 1 {
				return singular(res.n)
			}
			_, err := applyGUCs(http.Header{}, res, 200)
			return err
		}
	}
	s := a.spec(rc, readOnly, st, decide)
	// A call that writes commits in the round trip that runs it, as a
	// table write does, when nothing but a response GUC can refuse it
	// afterwards (exec.go, foldable): the Explore shuffle, a VOLATILE
	// function for its random(), was the app's only read paying a second
	// round trip for its COMMIT.
	s.foldable = !readOnly && rc.prefs.strictMax() == nil && !(rc.media == mediaObject && f.RetSet)
	res, err := a.exec(rc, s)
	if err != nil {
		return err
	}
	if rc.plan != nil {
		return respondPlan(c, rc, res)
	}
	return a.respondRPC(c, rc, f, res, off)
}

// respondRPC answers a call by what the function returns: a set is read
// like a table, a single composite value is an object (null when absent),
// a scalar is its bare JSON value and void is 204.
func (a *API) respondRPC(c *echo.Context, rc *reqCtx, f *schema.Func, res *result, off int64) error {
	head := rc.r.Method == http.MethodHead
	if f.RetSet {
		return a.respondRows(c, rc, res, off, false)
	}
	h := c.Response().Header()
	if rc.prefs.count != "" && f.RetKind != "void" {
		// One value is one row, as PostgREST counts it.
		h.Set("Content-Range", "0-0/1")
	}
	if pa := rc.prefs.applied(false, rc.set.txOverride()); pa != "" {
		h.Set("Preference-Applied", pa)
	}
	switch {
	case f.RetKind == "composite":
		status, err := applyGUCs(c.Response().Header(), res, http.StatusOK)
		if err != nil {
			return err
		}
		if head {
			return c.NoContent(status)
		}
		out := []byte("null")
		if res.n == 1 {
			out = unwrapSingle(res.body)
		}
		return c.Blob(status, ctJSON, out)
	}
	status := http.StatusOK
	if f.RetKind == "void" {
		status = http.StatusNoContent
	}
	status, err := applyGUCs(c.Response().Header(), res, status)
	if err != nil {
		return err
	}
	if head || status == http.StatusNoContent {
		return c.NoContent(status)
	}
	return c.Blob(status, ctJSON, res.body)
}
