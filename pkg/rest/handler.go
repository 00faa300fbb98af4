package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// reqCtx is what every handler resolves first.
type reqCtx struct {
	r      *http.Request
	caller *caller
	sc     *schema.Cache
	schema string
	prefs  prefs
	media  media
	strip  bool
}

func (a *API) begin(c *echo.Context, root bool) (*reqCtx, error) {
	r := c.Request()
	cl, err := a.authenticate(r)
	if err != nil {
		return nil, err
	}
	rc := &reqCtx{r: r, caller: cl, sc: a.cache.Load(), prefs: parsePrefer(r.Header)}
	if err := rc.prefs.check(); err != nil {
		return nil, err
	}
	profile := r.Header.Get("Accept-Profile")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		profile = r.Header.Get("Content-Profile")
	}
	rc.schema = a.cfg.DBSchemas[0]
	if profile = strings.TrimSpace(profile); profile != "" {
		ok := false
		for _, s := range a.cfg.DBSchemas {
			if s == profile {
				ok = true
			}
		}
		if !ok {
			e := apierr.New(http.StatusNotAcceptable, "PGRST106", "Invalid schema: %s", profile)
			e.Hint = "Only the following schemas are exposed: " + strings.Join(a.cfg.DBSchemas, ", ")
			return nil, e
		}
		rc.schema = profile
	}
	if rc.media, rc.strip, err = negotiate(r.Header.Get("Accept"), root); err != nil {
		return nil, err
	}
	return rc, nil
}

func (a *API) spec(rc *reqCtx, readOnly bool, st *query.Statement, decide func(*result) error) *txSpec {
	return &txSpec{caller: rc.caller, readOnly: readOnly, method: rc.r.Method, path: rc.r.URL.Path,
		headers: requestHeaders(rc.r.Header), cookies: requestCookies(rc.r), schema: rc.schema, stmt: st, decide: decide}
}

func (a *API) exec(rc *reqCtx, s *txSpec) (*result, error) {
	res, err := a.run(rc.r.Context(), s)
	if err != nil {
		return nil, translate(err, rc.caller.authed(a.cfg.DBAnonRole))
	}
	return res, nil
}

func (a *API) table(c *echo.Context) error {
	r := c.Request()
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
	case http.MethodOptions:
		c.Response().Header().Set("Allow", "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE")
		return c.NoContent(http.StatusOK)
	default:
		return apierr.New(http.StatusMethodNotAllowed, "PGRST117", "Unsupported HTTP method: %s", r.Method)
	}
	rc, err := a.begin(c, false)
	if err != nil {
		return err
	}
	name := c.Param("table")
	t := rc.sc.Table(rc.schema, name)
	if t == nil {
		return query.TableNotFound(rc.sc, rc.schema, name)
	}
	pairs, err := query.SplitQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	req, err := query.Parse(pairs, nil)
	if err != nil {
		return err
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return a.read(c, rc, t, req)
	case http.MethodPost:
		return a.insert(c, rc, t, req)
	case http.MethodPatch:
		return a.update(c, rc, t, req)
	case http.MethodPut:
		return a.put(c, rc, t, req)
	default:
		return a.delete(c, rc, t, req)
	}
}

// page combines limit/offset with a Range header.
func page(n *query.Node, h http.Header, useRange bool) (int64, *int64, error) {
	var off int64
	if n.Offset != nil {
		off = *n.Offset
	}
	lim := n.Limit
	if !useRange {
		return off, lim, nil
	}
	lower, upper, ok := rangeHeader(h)
	if !ok {
		return off, lim, nil
	}
	if upper != nil && *upper < lower {
		e := apierr.New(http.StatusRequestedRangeNotSatisfiable, "PGRST103", "Requested range not satisfiable")
		e.Details = "The lower boundary must be lower than or equal to the upper boundary in the Range header."
		return 0, nil, e
	}
	start := max(off, lower)
	var end *int64
	if lim != nil {
		x := off + *lim
		end = &x
	}
	if upper != nil {
		x := *upper + 1
		if end == nil || x < *end {
			end = &x
		}
	}
	if end != nil {
		l := max(*end-start, 0)
		lim = &l
	}
	return start, lim, nil
}

func (a *API) read(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	off, lim, err := page(req.Root(), rc.r.Header, true)
	if err != nil {
		return err
	}
	o := query.ReadOpts{Count: rc.prefs.count != "", Head: rc.r.Method == http.MethodHead, StripNulls: rc.strip, Limit: lim, Offset: &off}
	st, err := query.NewBuilder(rc.sc).Read(query.Target{Table: t}, req, o)
	if err != nil {
		return err
	}
	res, err := a.exec(rc, a.spec(rc, true, st, nil))
	if err != nil {
		return err
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
			e := apierr.New(http.StatusRequestedRangeNotSatisfiable, "PGRST103", "Requested range not satisfiable")
			e.Details = fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", off, *res.total)
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
	if pa := rc.prefs.applied(write); pa != "" {
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
		if rc.media == mediaCSV {
			ct = ctCSV
		}
		c.Response().Header().Set("Content-Type", ct)
		return c.NoContent(status)
	}
	switch rc.media {
	case mediaObject:
		return c.Blob(status, ctObject, unwrapSingle(res.body))
	case mediaCSV:
		out, err := jsonToCSV(res.body)
		if err != nil {
			return apierr.Internal(err)
		}
		return c.Blob(status, ctCSV, out)
	}
	return c.Blob(status, ctJSON, res.body)
}

// singular is PGRST116 with the wording this gateway keeps fixed (clients
// parse details to tell 0 rows from many).
func singular(n int64) *apierr.Error {
	e := apierr.New(http.StatusNotAcceptable, "PGRST116", "JSON object requested, multiple (or no) rows returned")
	e.Details = fmt.Sprintf("The result contains %d rows", n)
	return e
}

// unwrapSingle turns json_agg's one-element array into the element.
func unwrapSingle(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' {
		return bytes.TrimSpace(b[1 : len(b)-1])
	}
	return b
}

// applyGUCs applies response.headers and response.status set by SQL.
func applyGUCs(h http.Header, res *result, status int) (int, error) {
	if res.headers != "" {
		var list []map[string]any
		if err := json.Unmarshal([]byte(res.headers), &list); err != nil {
			return 0, gucHeadersError()
		}
		for _, m := range list {
			if len(m) != 1 {
				return 0, gucHeadersError()
			}
			for k, v := range m {
				s, ok := v.(string)
				if !ok || !sqlHeaderAllowed(k, s) {
					return 0, gucHeadersError()
				}
				h.Set(k, s)
			}
		}
	}
	if res.status != "" {
		n, err := strconv.Atoi(strings.TrimSpace(res.status))
		if err != nil || n < 100 || n > 599 {
			return 0, apierr.New(http.StatusInternalServerError, "PGRST112", "response.status guc must be a valid status code")
		}
		status = n
	}
	return status, nil
}

func gucHeadersError() *apierr.Error {
	return apierr.New(http.StatusInternalServerError, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value")
}

// readBody reads at most MaxBodyBytes.
func (a *API) readBody(c *echo.Context) ([]byte, error) {
	r := c.Request()
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, a.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierr.New(http.StatusRequestEntityTooLarge, "PGRST102", "Request body exceeds the limit of %d bytes", a.cfg.MaxBodyBytes)
		}
		return nil, apierr.New(http.StatusBadRequest, "PGRST102", "Could not read the request body").WithCause(err)
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "", "application/json", "application/vnd.pgrst.object+json", "application/vnd.pgrst.object", "text/plain":
		return body, nil
	case "text/csv":
		return csvToJSON(body)
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, invalidBody()
		}
		m := map[string]string{}
		for k, v := range vals {
			m[k] = v[len(v)-1]
		}
		return json.Marshal(m)
	}
	if strings.HasSuffix(ct, "+json") {
		return body, nil
	}
	return nil, apierr.New(http.StatusUnsupportedMediaType, "PGRST107", "Content-Type not acceptable: %s", ct)
}

func invalidBody() *apierr.Error {
	return apierr.New(http.StatusBadRequest, "PGRST102", "Empty or invalid json")
}

// decodeRows reads a JSON object or array of objects.
func decodeRows(body []byte) ([]map[string]json.RawMessage, bool, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, false, invalidBody()
	}
	if trimmed[0] == '[' {
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &rows); err != nil {
			return nil, true, invalidBody()
		}
		for _, r := range rows {
			if r == nil {
				return nil, true, invalidBody()
			}
		}
		return rows, true, nil
	}
	var row map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &row); err != nil || row == nil {
		return nil, false, invalidBody()
	}
	return []map[string]json.RawMessage{row}, false, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (a *API) mutateOpts(rc *reqCtx) query.MutateOpts {
	ret := rc.prefs.ret
	if ret == "" {
		ret = "minimal"
	}
	return query.MutateOpts{Return: ret, Count: rc.prefs.count != "", StripNulls: rc.strip}
}

// decideWrite rolls a write back when its response cannot be given: a
// singular representation without exactly one row, or bad response GUCs.
func (a *API) decideWrite(rc *reqCtx, o query.MutateOpts) func(*result) error {
	return func(res *result) error {
		if rc.media == mediaObject && o.Return == "representation" && res.n != 1 {
			return singular(res.n)
		}
		_, err := applyGUCs(http.Header{}, res, 200)
		return err
	}
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
	var groups []query.InsertGroup
	switch {
	case req.Columns != nil && rc.prefs.missingDefault:
		idx := map[string]int{}
		var members [][]map[string]json.RawMessage
		for _, row := range rows {
			var cols []string
			for _, c := range req.Columns {
				if _, ok := row[c]; ok {
					cols = append(cols, c)
				}
			}
			key := strings.Join(cols, "\x00")
			i, ok := idx[key]
			if !ok {
				i = len(groups)
				idx[key] = i
				groups = append(groups, query.InsertGroup{Columns: cols})
				members = append(members, nil)
			}
			members[i] = append(members[i], row)
		}
		for i := range groups {
			b, _ := json.Marshal(members[i])
			groups[i].Body = string(b)
		}
		if len(groups) == 0 {
			groups = []query.InsertGroup{{Columns: req.Columns, Body: "[]"}}
		}
	default:
		var cols []string
		if req.Columns != nil {
			cols = req.Columns
		} else if len(rows) > 0 {
			cols = sortedKeys(rows[0])
			for _, r := range rows[1:] {
				if len(r) != len(cols) {
					return apierr.New(http.StatusBadRequest, "PGRST102", "All object keys must match")
				}
				for _, c := range cols {
					if _, ok := r[c]; !ok {
						return apierr.New(http.StatusBadRequest, "PGRST102", "All object keys must match")
					}
				}
			}
		}
		b := bytes.TrimSpace(body)
		if !isArray {
			b = append(append([]byte{'['}, b...), ']')
		}
		groups = []query.InsertGroup{{Columns: cols, Body: string(b)}}
	}
	o := a.mutateOpts(rc)
	st, err := query.NewBuilder(rc.sc).Insert(t, req, groups, rc.prefs.resolution, o)
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
		return apierr.New(http.StatusBadRequest, "PGRST102", "A PATCH body must be a single JSON object")
	}
	o := a.mutateOpts(rc)
	keys := sortedKeys(rows[0])
	if len(keys) == 0 {
		// Nothing to set: nothing changes, as with PostgREST.
		return a.respondWrite(c, rc, t, &result{body: []byte("[]")}, o, http.StatusOK)
	}
	st, err := query.NewBuilder(rc.sc).Update(t, req, string(body), keys, o)
	if err != nil {
		return err
	}
	return a.runWrite(c, rc, t, st, o, http.StatusOK)
}

func (a *API) delete(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	o := a.mutateOpts(rc)
	st, err := query.NewBuilder(rc.sc).Delete(t, req, o)
	if err != nil {
		return err
	}
	return a.runWrite(c, rc, t, st, o, http.StatusOK)
}

// runWrite executes a built write statement in the request's transaction
// and answers per Prefer: return=.
func (a *API) runWrite(c *echo.Context, rc *reqCtx, t *schema.Table, st *query.Statement, o query.MutateOpts, okStatus int) error {
	res, err := a.exec(rc, a.spec(rc, false, st, a.decideWrite(rc, o)))
	if err != nil {
		return err
	}
	return a.respondWrite(c, rc, t, res, o, okStatus)
}

// respondWrite answers POST/PATCH/DELETE per Prefer: return=.
func (a *API) respondWrite(c *echo.Context, rc *reqCtx, t *schema.Table, res *result, o query.MutateOpts, okStatus int) error {
	h := c.Response().Header()
	total := "*"
	if o.Count {
		total = strconv.FormatInt(res.n, 10)
	}
	if res.n > 0 && okStatus != http.StatusCreated {
		h.Set("Content-Range", fmt.Sprintf("0-%d/%s", res.n-1, total))
	} else {
		h.Set("Content-Range", "*/"+total)
	}
	if pa := rc.prefs.applied(true); pa != "" {
		h.Set("Preference-Applied", pa)
	}
	created := okStatus == http.StatusCreated
	if o.Return == "headers-only" && created && res.n == 1 && len(t.PK) > 0 {
		if loc := location(t, res.body); loc != "" {
			h.Set("Location", loc)
		}
	}
	status := okStatus
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
