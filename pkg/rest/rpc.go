package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/query"
)

var rpcReserved = map[string]bool{"select": true, "order": true, "limit": true, "offset": true,
	"columns": true, "on_conflict": true, "or": true, "and": true, "not.or": true, "not.and": true, "apikey": true}

// rpc calls /rpc/<fn>: POST with a JSON body of named arguments, GET and
// HEAD with arguments in the query string. STABLE and IMMUTABLE functions
// run read-only; GET and HEAD always do, so a function that writes answers
// 405 there (25006), as with PostgREST.
func (a *API) rpc(c *echo.Context) error {
	r := c.Request()
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodPost:
	case http.MethodOptions:
		c.Response().Header().Set("Allow", "OPTIONS,GET,HEAD,POST")
		return c.NoContent(http.StatusOK)
	default:
		return apierr.New(http.StatusMethodNotAllowed, "PGRST101", "Cannot use the %s method on RPC", r.Method)
	}
	rc, err := a.begin(c, false)
	if err != nil {
		return err
	}
	name := c.Param("fn")
	pairs, err := query.SplitQuery(r.URL.RawQuery)
	if err != nil {
		return err
	}
	post := r.Method == http.MethodPost
	var keys []string
	var body []byte
	bodyIsObject := true
	if post {
		if body, err = a.readBody(c); err != nil {
			return err
		}
		body = bytes.TrimSpace(body)
		if len(body) == 0 {
			body = []byte("{}")
		}
		var obj map[string]json.RawMessage
		if body[0] == '{' {
			if err := json.Unmarshal(body, &obj); err != nil {
				return invalidBody()
			}
			for k := range obj {
				keys = append(keys, k)
			}
			sort.Strings(keys)
		} else {
			if !json.Valid(body) {
				return invalidBody()
			}
			bodyIsObject = false
		}
	} else {
		seen := map[string]bool{}
		for _, p := range pairs {
			if rpcReserved[p.Key] || strings.Contains(p.Key, ".") || seen[p.Key] {
				continue
			}
			seen[p.Key] = true
			keys = append(keys, p.Key)
		}
	}
	f, single, err := query.ResolveFunc(rc.sc, rc.schema, name, keys, post, bodyIsObject)
	if err != nil {
		return err
	}
	if post && !bodyIsObject && !single {
		return invalidBody()
	}
	call := query.Call{Func: f, SingleJSON: single}
	var req *query.Request
	if post {
		if req, err = query.Parse(pairs, nil); err != nil {
			return err
		}
		call.Body, call.Args = string(body), keys
	} else {
		params := map[string]bool{}
		for _, p := range f.Params {
			params[p.Name] = true
		}
		if req, err = query.Parse(pairs, func(k string) bool { return params[k] }); err != nil {
			return err
		}
		b, _ := json.Marshal(req.Args)
		call.Body, call.Args = string(b), req.ArgOrder
	}
	off, lim, err := page(req.Root(), r.Header, !post)
	if err != nil {
		return err
	}
	o := query.ReadOpts{Count: rc.prefs.count != "", Head: r.Method == http.MethodHead, StripNulls: rc.strip, Limit: lim, Offset: &off}
	st, err := query.NewBuilder(rc.sc).RPC(call, req, o)
	if err != nil {
		return err
	}
	readOnly := !post || f.Volatility != "v"
	setLike := f.RetSet || f.RetKind == "composite"
	var decide func(*result) error
	if !readOnly {
		decide = func(res *result) error {
			if rc.media == mediaObject && f.RetSet && res.n != 1 {
				return singular(res.n)
			}
			_, err := applyGUCs(http.Header{}, res, 200)
			return err
		}
	}
	res, err := a.exec(rc, a.spec(rc, readOnly, st, decide))
	if err != nil {
		return err
	}
	switch {
	case f.RetSet:
		return a.respondRows(c, rc, res, off, false)
	case f.RetKind == "composite" && setLike:
		// A single composite value is an object, not an array.
		status, err := applyGUCs(c.Response().Header(), res, http.StatusOK)
		if err != nil {
			return err
		}
		if r.Method == http.MethodHead {
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
	status, err = applyGUCs(c.Response().Header(), res, status)
	if err != nil {
		return err
	}
	if r.Method == http.MethodHead || status == http.StatusNoContent {
		return c.NoContent(status)
	}
	return c.Blob(status, ctJSON, res.body)
}
