package rest

// What every /rest/v1 request resolves first: the caller, the schema, the
// preferences and the representation; and the paging shared by reads.

import (
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
	"github.com/labstack/echo/v5"
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
	// plan asks for the statement's EXPLAIN instead of its result.
	plan *planSpec
	// set is the settings snapshot the request runs under.
	set *settings
}

func (a *API) begin(c *echo.Context, root bool) (*reqCtx, error) {
	r := c.Request()
	set := a.settings()
	cl, err := a.authenticate(r, set)
	if err != nil {
		return nil, err
	}
	rc := &reqCtx{r: r, caller: cl, sc: a.cache.Load(), prefs: parsePrefer(r.Header), set: set}
	if err := rc.prefs.check(); err != nil {
		return nil, err
	}
	if rc.schema, err = profileSchema(r, set.Schemas); err != nil {
		return nil, err
	}
	acc, err := negotiate(r.Header.Get("Accept"), root, set.PlanEnabled)
	rc.media, rc.strip, rc.plan = acc.media, acc.strip, acc.plan
	return rc, err
}

// profileSchema is the schema a request names (Accept-Profile for reads,
// Content-Profile for writes), the first exposed one when it names none;
// PGRST106 for a schema that is not exposed.
func profileSchema(r *http.Request, exposed []string) (string, error) {
	profile := r.Header.Get("Accept-Profile")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		profile = r.Header.Get("Content-Profile")
	}
	profile = strings.TrimSpace(profile)
	if profile == "" {
		return exposed[0], nil
	}
	if !slices.Contains(exposed, profile) {
		e := apierr.New(http.StatusNotAcceptable, pgrst.CodeSchema, "Invalid schema: %s", profile)
		e.Hint = "Only the following schemas are exposed: " + strings.Join(exposed, ", ")
		return "", e
	}
	return profile, nil
}

// spec is the transaction a request runs. request.headers and
// request.cookies are only built when the setup sends them: the headers'
// JSON is the largest value a request sends and most databases never read
// it.
func (a *API) spec(rc *reqCtx, readOnly bool, st *query.Statement, decide func(*result) error) *txSpec {
	reads := rc.sc.Reads
	if a.cfg.RESTSpeed.SetAllRequestSettings {
		reads = db.ReadsAll
	}
	s := &txSpec{caller: db.Caller{
		Role: rc.caller.role, Claims: rc.caller.claims,
		Method: rc.r.Method, Path: rc.r.URL.Path,
		StatementTimeout: a.cfg.StatementTimeout, SearchPath: searchPath(rc.schema, rc.set.ExtraSearchPath),
		ReadOnly: readOnly,
	}, stmt: st, decide: decide, rollback: rc.set.rollbackFor(rc.prefs), plan: rc.plan, preRequest: rc.set.PreRequest,
		prepared: rc.set.Prepared, anonRole: rc.set.AnonRole, reads: reads,
		guard: rc.sc.WritesResponse || a.cfg.RESTSpeed.SetAllRequestSettings}
	if reads&db.ReadsHeaders != 0 {
		s.caller.Headers = requestHeaders(rc.r.Header)
	}
	if reads&db.ReadsCookies != 0 {
		s.caller.Cookies = requestCookies(rc.r)
	}
	return s
}

// txOverride says whether a request may choose how its transaction ends.
func (s *settings) txOverride() bool { return strings.HasSuffix(s.TxEnd, "-allow-override") }

// rollbackFor says whether the request's transaction is rolled back.
func (s *settings) rollbackFor(p prefs) bool {
	if s.txOverride() && p.tx != "" {
		return p.tx == "rollback"
	}
	return strings.HasPrefix(s.TxEnd, "rollback")
}

// exec runs the request's transaction; its errors are translated once,
// here, into PostgREST's (run returns no result with an error).
func (a *API) exec(rc *reqCtx, s *txSpec) (*result, error) {
	res, err := a.run(rc.r.Context(), s)
	if err != nil {
		err = translate(err, rc.caller.authed(rc.set.AnonRole))
	}
	return res, err
}

func (a *API) table(c *echo.Context) error {
	r := c.Request()
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
	case http.MethodOptions:
		c.Response().Header().Set("Allow", "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE")
		return c.NoContent(http.StatusOK)
	default:
		return pgrst.UnsupportedMethod(r.Method)
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
		return a.read(c, rc, t, pairs, req)
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

// page combines limit/offset with a Range header, capped at maxRows
// (PostgREST's db-max-rows) when that is set.
func page(n *query.Node, h http.Header, useRange bool, maxRows int64) (int64, *int64, error) {
	off, lim, err := pageOf(n, h, useRange)
	if err == nil && maxRows > 0 && (lim == nil || *lim > maxRows) {
		lim = &maxRows
	}
	return off, lim, err
}

func pageOf(n *query.Node, h http.Header, useRange bool) (int64, *int64, error) {
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
		return 0, nil, pgrst.RangeNotSatisfiable("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
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

// searchPath is a request's search_path as PostgREST sets it: the
// request's schema, then every schema of the extra search path
// (db-extra-search-path), each quoted, none dropped (public on public is
// there twice, as EXPLAIN's Settings shows it from PostgREST).
func searchPath(schema string, extra []string) string {
	parts := make([]string, 0, 1+len(extra))
	parts = append(parts, pgx.Identifier{schema}.Sanitize())
	for _, s := range extra {
		parts = append(parts, pgx.Identifier{s}.Sanitize())
	}
	return strings.Join(parts, ", ")
}

// estimateAbove is the exact count above which Prefer: count=estimated
// answers the planner's estimate: db-max-rows, as in PostgREST; 0 (always
// exact) without it or for other counts.
func (rc *reqCtx) estimateAbove() int64 {
	if rc.prefs.count == "estimated" {
		return rc.set.MaxRows
	}
	return 0
}

// builder returns a statement builder over the request's schema cache
// snapshot, with the server's optional features.
func (a *API) builder(rc *reqCtx) *query.Builder {
	b := query.NewBuilder(rc.sc)
	b.Aggregates = rc.set.Aggregates
	b.MaxRows = rc.set.MaxRows
	return b
}

// format is the body format the negotiated media needs from SQL.
func (rc *reqCtx) format() query.Format {
	switch rc.media {
	case mediaCSV:
		return query.FormatCSV
	case mediaGeoJSON:
		return query.FormatGeoJSON
	}
	return query.FormatJSON
}

// formatIf is format when the result is a set of rows, JSON otherwise.
func (rc *reqCtx) formatIf(rows bool) query.Format {
	if !rows {
		return query.FormatJSON
	}
	return rc.format()
}
