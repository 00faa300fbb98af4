package rest

// Writes of tables and views: POST, PATCH, DELETE (PUT is in put.go) and
// their responses per Prefer: return=.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
	"github.com/labstack/echo/v5"
)

func (a *API) mutateOpts(rc *reqCtx) query.MutateOpts {
	ret := rc.prefs.ret
	if ret == "" {
		ret = "minimal"
	}
	// max-affected needs the number of rows changed even when nothing is
	// returned, so the statement counts them.
	return query.MutateOpts{Return: ret, Count: rc.prefs.count != "" || rc.prefs.strictMax() != nil, StripNulls: rc.strip, Format: rc.format()}
}

// decideWrite rolls a write back when its response cannot be given: more
// rows changed than Prefer: max-affected allows, a singular representation
// without exactly one row, or bad response GUCs.
func (a *API) decideWrite(rc *reqCtx, o query.MutateOpts) func(*result) error {
	return func(res *result) error {
		if err := checkMaxAffected(rc, res); err != nil {
			return err
		}
		if rc.media == mediaObject && o.Return == "representation" && res.n != 1 {
			return singular(res.n)
		}
		_, err := applyGUCs(http.Header{}, res, 200)
		return err
	}
}

// checkMaxAffected is PGRST124 when a write or call touched more rows
// than Prefer: handling=strict, max-affected=N allows.
func checkMaxAffected(rc *reqCtx, res *result) error {
	if m := rc.prefs.strictMax(); m != nil && res.n > *m {
		return pgrst.MaxAffected(res.n)
	}
	return nil
}

func (a *API) insert(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	rows, isArray, err := decodeRows(body)
	if err != nil {
		return err
	}
	groups, err := insertGroups(rows, isArray, body, req.Columns, rc.prefs.missingDefault)
	if err != nil {
		return err
	}
	o := a.mutateOpts(rc)
	st, err := a.builder(rc).Insert(t, req, groups, rc.prefs.resolution, o)
	if err != nil {
		return err
	}
	return a.runWrite(c, rc, t, st, o, http.StatusCreated)
}

func (a *API) update(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	rows, isArray, err := decodeRows(body)
	if err != nil {
		return err
	}
	if isArray {
		return pgrst.Body("A PATCH body must be a single JSON object")
	}
	o := a.mutateOpts(rc)
	keys := sortedKeys(rows[0])
	if len(keys) == 0 {
		// Nothing to set: nothing changes, as with PostgREST.
		return a.respondWrite(c, rc, t, &result{body: []byte("[]")}, o, http.StatusOK)
	}
	st, err := a.builder(rc).Update(t, req, string(body), keys, o)
	if err != nil {
		return err
	}
	return a.runWrite(c, rc, t, st, o, http.StatusOK)
}

func (a *API) delete(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	o := a.mutateOpts(rc)
	st, err := a.builder(rc).Delete(t, req, o)
	if err != nil {
		return err
	}
	return a.runWrite(c, rc, t, st, o, http.StatusOK)
}

// runWrite executes a built write statement in the request's transaction
// and answers per Prefer: return=.
func (a *API) runWrite(c *echo.Context, rc *reqCtx, t *schema.Table, st *query.Statement, o query.MutateOpts, okStatus int) error {
	s := a.spec(rc, false, st, a.decideWrite(rc, o))
	s.foldable = rc.prefs.strictMax() == nil && !(rc.media == mediaObject && o.Return == "representation")
	res, err := a.exec(rc, s)
	if err != nil {
		return err
	}
	if rc.plan != nil {
		return respondPlan(c, rc, res)
	}
	return a.respondWrite(c, rc, t, res, o, okStatus)
}

// respondWrite answers POST/PATCH/DELETE per Prefer: return=.
func (a *API) respondWrite(c *echo.Context, rc *reqCtx, t *schema.Table, res *result, o query.MutateOpts, okStatus int) error {
	h := c.Response().Header()
	total := "*"
	if rc.prefs.count != "" {
		total = strconv.FormatInt(res.n, 10)
	}
	if res.n > 0 && okStatus != http.StatusCreated {
		h.Set("Content-Range", fmt.Sprintf("0-%d/%s", res.n-1, total))
	} else {
		h.Set("Content-Range", "*/"+total)
	}
	if pa := rc.prefs.applied(true, rc.set.txOverride()); pa != "" {
		h.Set("Preference-Applied", pa)
	}
	created := okStatus == http.StatusCreated
	if o.Return == "headers-only" && created && res.n == 1 && len(t.PK) > 0 {
		if loc := location(t, res.body); loc != "" {
			h.Set("Location", loc)
		}
	}
	status := okStatus
	if created && res.total != nil && *res.total == 0 {
		// A merging upsert (POST with resolution=merge-duplicates, or PUT)
		// that inserted nothing updated rows: 200, as PostgREST.
		status = http.StatusOK
		if rc.r.Method == http.MethodPut && o.Return != "representation" {
			status = http.StatusNoContent
		}
	}
	if o.Return != "representation" && !created {
		status = http.StatusNoContent
	}
	status, err := applyGUCs(h, res, status)
	if err != nil {
		return err
	}
	if o.Return != "representation" {
		return c.NoContent(status)
	}
	return a.writeBody(c, rc, status, res)
}

// location is /table?pk=eq.value for a created row.
func location(t *schema.Table, body []byte) string {
	var rows []map[string]any
	if json.Unmarshal(body, &rows) != nil || len(rows) != 1 {
		return ""
	}
	var parts []string
	for _, c := range t.PK {
		v := rows[0][c]
		s := ""
		switch x := v.(type) {
		case string:
			s = x
		case nil:
			s = "null"
		default:
			b, _ := json.Marshal(x)
			s = string(b)
		}
		parts = append(parts, url.QueryEscape(c)+"=eq."+url.QueryEscape(s))
	}
	return "/" + t.Name + "?" + strings.Join(parts, "&")
}
