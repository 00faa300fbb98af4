package rest

// EXPLAIN over the API (Accept: application/vnd.pgrst.plan), as PostgREST's
// db-plan-enabled offers it: the plan of the very statement the request
// would run, in JSON or text, with EXPLAIN's options. Off by default
// (DB_PLAN_ENABLED): plans reveal table sizes and indexes.

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

// planSpec is a plan request read from Accept.
type planSpec struct {
	text bool
	// forMedia is the representation whose statement is explained, as
	// given in for="…" (normalised), or "" when absent.
	forMedia string
	// options are EXPLAIN options in PostgREST's order.
	options []string
}

// planOptions are the options PostgREST accepts, in its order.
var planOptions = []string{"analyze", "verbose", "settings", "buffers", "wal"}

// parsePlan reads application/vnd.pgrst.plan[+json|+text] and its
// parameters; the media the plan is for follows from for=.
func parsePlan(typ string, params map[string]string) (*planSpec, media, bool) {
	p := &planSpec{text: typ != "application/vnd.pgrst.plan+json"}
	m := mediaJSON
	if f, ok := params["for"]; ok {
		switch strings.Trim(f, `"`) {
		case "application/json":
			p.forMedia = "application/json"
		case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
			p.forMedia, m = "application/vnd.pgrst.object+json", mediaObject
		case "text/csv":
			p.forMedia, m = "text/csv", mediaCSV
		default:
			return nil, 0, false
		}
	}
	if o, ok := params["options"]; ok {
		given := map[string]bool{}
		for _, opt := range strings.Split(o, "|") {
			// postgrest-js sends "options=;" when it has none.
			if opt = strings.TrimSpace(opt); opt != "" {
				given[opt] = true
			}
		}
		for _, opt := range planOptions {
			if given[opt] {
				p.options = append(p.options, opt)
				delete(given, opt)
			}
		}
		if len(given) > 0 {
			return nil, 0, false
		}
	}
	return p, m, true
}

// queryIDSQL turns compute_query_id on for the transaction when the role
// may set it, so EXPLAIN VERBOSE shows the Query Identifier as it does on
// a server computing query ids (hosted Supabase, with pg_stat_statements).
const queryIDSQL = `SELECT CASE WHEN pg_catalog.has_parameter_privilege('compute_query_id', 'SET')
 THEN pg_catalog.set_config('compute_query_id', 'on', true) END`

// verbose says whether the plan was asked for with options=verbose.
func (p *planSpec) verbose() bool {
	if p == nil {
		return false
	}
	for _, o := range p.options {
		if o == "verbose" {
			return true
		}
	}
	return false
}

// explain wraps the request's statement in EXPLAIN with the options.
func (p *planSpec) explain(sql string) string {
	opts := []string{"FORMAT JSON"}
	if p.text {
		opts[0] = "FORMAT TEXT"
	}
	for _, o := range p.options {
		opts = append(opts, strings.ToUpper(o))
	}
	return "EXPLAIN (" + strings.Join(opts, ", ") + ") " + sql
}

// contentType echoes the plan media with the parameters given.
func (p *planSpec) contentType() string {
	ct := "application/vnd.pgrst.plan+json"
	if p.text {
		ct = "application/vnd.pgrst.plan+text"
	}
	if p.forMedia != "" {
		ct += `; for="` + p.forMedia + `"`
	}
	if len(p.options) > 0 {
		ct += "; options=" + strings.Join(p.options, "|")
	}
	return ct + "; charset=utf-8"
}

// planDisabled is PostgREST's answer to a plan request while plans are off.
func planDisabled(accept string) *apierr.Error {
	return apierr.New(http.StatusUnsupportedMediaType, pgrst.CodeMediaType, "None of these media types are available: %s", accept)
}

// respondPlan answers with the plan the statement produced.
func respondPlan(c *echo.Context, rc *reqCtx, res *result) error {
	return c.Blob(http.StatusOK, rc.plan.contentType(), res.body)
}
