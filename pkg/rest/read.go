package rest

// Reads of tables and views (GET, HEAD) and the response of every read.

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
	"github.com/labstack/echo/v5"
)

func (a *API) read(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	off, lim, err := page(req.Root(), rc.r.Header, true, rc.set.MaxRows)
	if err != nil {
		return err
	}
	o := query.ReadOpts{Count: rc.prefs.count != "", Planned: rc.prefs.count == "planned", Head: rc.r.Method == http.MethodHead, StripNulls: rc.strip, Format: rc.format(), Limit: lim, Offset: &off}
	st, err := a.builder(rc).Read(query.Target{Table: t}, req, o)
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

// respondRows answers a read: Content-Range, 206/416, and the body in the
// negotiated representation.
func (a *API) respondRows(c *echo.Context, rc *reqCtx, res *result, off int64, write bool) error {
	h := c.Response().Header()
	status := http.StatusOK
	total := "*"
	if res.total != nil {
		total = strconv.FormatInt(*res.total, 10)
		switch {
		case off > *res.total:
			e := pgrst.RangeNotSatisfiable(fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", off, *res.total))
			return e.WithHeader("Content-Range", "*/"+total)
		case res.n < *res.total:
			status = http.StatusPartialContent
		}
	}
	if res.n > 0 {
		h.Set("Content-Range", fmt.Sprintf("%d-%d/%s", off, off+res.n-1, total))
	} else {
		h.Set("Content-Range", "*/"+total)
	}
	if pa := rc.prefs.applied(write, rc.set.txOverride()); pa != "" {
		h.Set("Preference-Applied", pa)
	}
	status, err := applyGUCs(h, res, status)
	if err != nil {
		return err
	}
	return a.writeBody(c, rc, status, res)
}

func (a *API) writeBody(c *echo.Context, rc *reqCtx, status int, res *result) error {
	if rc.media == mediaObject {
		if res.n != 1 {
			return singular(res.n)
		}
	}
	if rc.r.Method == http.MethodHead {
		ct := ctJSON
		switch rc.media {
		case mediaCSV:
			ct = ctCSV
		case mediaGeoJSON:
			ct = ctGeoJSON
		}
		c.Response().Header().Set("Content-Type", ct)
		return c.NoContent(status)
	}
	switch rc.media {
	case mediaObject:
		return c.Blob(status, ctObject, unwrapSingle(res.body))
	case mediaCSV:
		return c.Blob(status, ctCSV, res.body)
	case mediaGeoJSON:
		return c.Blob(status, ctGeoJSON, res.body)
	}
	return c.Blob(status, ctJSON, res.body)
}

// singular is PGRST116 (clients parse details to tell 0 rows from many).
func singular(n int64) *apierr.Error { return pgrst.Singular(n) }

// unwrapSingle turns json_agg's one-element array into the element.
func unwrapSingle(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' {
		return bytes.TrimSpace(b[1 : len(b)-1])
	}
	return b
}
