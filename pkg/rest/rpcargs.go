package rest

// Arguments of /rpc/<fn>: a POST's JSON body, or a GET's query string,
// resolved to one function and turned into a query.Call.

import (
	"bytes"
	"encoding/json"
	"mime"
	"sort"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// rpcReserved are query keys that are never function arguments.
var rpcReserved = map[string]bool{"select": true, "order": true, "limit": true, "offset": true,
	"columns": true, "on_conflict": true, "or": true, "and": true, "not.or": true, "not.and": true, "apikey": true}

// rpcArgs is what a request passes to a function before it is resolved.
type rpcArgs struct {
	post bool
	// keys are the argument names, sorted for POST, in query order for GET.
	keys []string
	// body is a POST's body; bodyIsObject says whether it is a JSON object
	// (named arguments) rather than a single value for an unnamed
	// json/jsonb parameter.
	body         []byte
	bodyIsObject bool
	// unnamed is the parameter type a raw body goes to ("text" for
	// text/plain, "xml" for text/xml), as PostgREST passes such bodies
	// whole to a function's single unnamed parameter.
	unnamed string
}

// readRPCArgs reads a POST body's argument names, or a GET's query keys
// that are neither reserved nor filters on the result (col.op).
func (a *API) readRPCArgs(c *echo.Context, pairs []query.Pair) (*rpcArgs, error) {
	in := &rpcArgs{post: c.Request().Method == "POST", bodyIsObject: true}
	if !in.post {
		seen := map[string]bool{}
		for _, p := range pairs {
			if rpcReserved[p.Key] || strings.Contains(p.Key, ".") || seen[p.Key] {
				continue
			}
			seen[p.Key] = true
			in.keys = append(in.keys, p.Key)
		}
		return in, nil
	}
	ct, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	switch ct {
	case "text/plain", "text/xml":
		raw, err := a.readRawBody(c)
		if err != nil {
			return nil, err
		}
		in.body, in.bodyIsObject, in.unnamed = raw, false, strings.TrimPrefix(ct, "text/")
		if in.unnamed == "plain" {
			in.unnamed = "text"
		}
		return in, nil
	}
	body, err := a.readBody(c)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	in.body = body
	if body[0] != '{' {
		if !json.Valid(body) {
			return nil, invalidBody()
		}
		in.bodyIsObject = false
		return in, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, invalidBody()
	}
	for k := range obj {
		in.keys = append(in.keys, k)
	}
	sort.Strings(in.keys)
	return in, nil
}

// call resolves the function and builds the call with the request's
// select, filters and modifiers. For GET, query keys that name parameters
// are arguments; the rest are filters on the result.
func (in *rpcArgs) call(sc *schema.Cache, sch, name string, pairs []query.Pair) (query.Call, *query.Request, error) {
	if in.unnamed != "" {
		f, err := query.ResolveUnnamed(sc, sch, name, in.unnamed)
		if err != nil {
			return query.Call{}, nil, err
		}
		req, err := query.Parse(pairs, nil)
		if err != nil {
			return query.Call{}, nil, err
		}
		return query.Call{Func: f, SingleJSON: true, Body: string(in.body)}, req, nil
	}
	f, single, err := query.ResolveFunc(sc, sch, name, in.keys, in.post, in.bodyIsObject)
	if err != nil {
		return query.Call{}, nil, err
	}
	if in.post && !in.bodyIsObject && !single {
		return query.Call{}, nil, invalidBody()
	}
	call := query.Call{Func: f, SingleJSON: single}
	if in.post {
		req, err := query.Parse(pairs, nil)
		if err != nil {
			return query.Call{}, nil, err
		}
		call.Body, call.Args = string(in.body), in.keys
		return call, req, nil
	}
	params := map[string]bool{}
	for _, p := range f.Params {
		params[p.Name] = true
	}
	req, err := query.Parse(pairs, func(k string) bool { return params[k] })
	if err != nil {
		return query.Call{}, nil, err
	}
	b, _ := json.Marshal(req.Args)
	call.Body, call.Args = string(b), req.ArgOrder
	return call, req, nil
}
