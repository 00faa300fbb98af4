package rest

// Arguments of /rpc/<fn>: a POST's JSON body, or a GET's query string,
// resolved to one function and turned into a query.Call.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
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
	query.CallInput
	// body is a POST's body; bodyIsObject says whether it is a JSON object
	// (named arguments) rather than a value only a single unnamed
	// parameter can take.
	body         []byte
	bodyIsObject bool
}

// readRPCArgs reads a POST body's argument names, or a GET's query
// parameters that are arguments: those neither reserved nor filters on
// the result (col=op.value, embed.col=…), as PostgREST tells them apart.
func (a *API) readRPCArgs(c *echo.Context, pairs []query.Pair) (*rpcArgs, error) {
	in := &rpcArgs{bodyIsObject: true}
	in.Post = c.Request().Method == "POST"
	if !in.Post {
		seen := map[string]bool{}
		for _, p := range pairs {
			if rpcReserved[p.Key] || strings.Contains(p.Key, ".") || query.IsFilterValue(p.Value) || seen[p.Key] {
				continue
			}
			seen[p.Key] = true
			in.Keys = append(in.Keys, p.Key)
		}
		return in, nil
	}
	ct := mediaType(c.Request())
	switch ct {
	case "text/plain", "text/xml", "application/octet-stream":
		// A raw body goes whole to a single unnamed parameter of its type.
		raw, err := a.readRawBody(c)
		if err != nil {
			return nil, err
		}
		in.body, in.bodyIsObject = raw, false
		in.Media = map[string]string{"text/plain": query.MediaText, "text/xml": query.MediaXML, "application/octet-stream": query.MediaBytea}[ct]
		return in, nil
	case "", "application/json":
		in.Media = query.MediaJSON
	default:
		in.Media = query.MediaOther
	}
	body, err := a.readBodyAs(c, ct)
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
	keys, ok := objectKeys(body)
	if !ok {
		return nil, invalidBody()
	}
	in.Keys = keys
	return in, nil
}

// call resolves the function and builds the call with the request's
// select, filters and modifiers. For GET, the query's arguments become a
// JSON object of text values; the rest are filters on the result.
func (in *rpcArgs) call(sc *schema.Cache, sch, name string, pairs []query.Pair) (query.Call, *query.Request, error) {
	r, err := query.ResolveFunc(sc, sch, name, in.CallInput)
	if err != nil {
		return query.Call{}, nil, err
	}
	f := r.Func
	if in.Post && !in.bodyIsObject && !r.Whole {
		return query.Call{}, nil, invalidBody()
	}
	call := query.Call{Func: f, SingleJSON: r.Whole}
	if in.Post {
		req, err := query.Parse(pairs, nil)
		if err != nil {
			return query.Call{}, nil, err
		}
		call.Body, call.Args = string(in.body), in.Keys
		if r.Whole && in.Media == query.MediaBytea {
			call.Body, call.Hex = hex.EncodeToString(in.body), true
		}
		return call, req, nil
	}
	args := map[string]bool{}
	for _, k := range in.Keys {
		args[k] = true
	}
	req, err := query.Parse(pairs, func(k, v string) bool { return args[k] && !query.IsFilterValue(v) })
	if err != nil {
		return query.Call{}, nil, err
	}
	b, _ := json.Marshal(req.Args)
	call.Body, call.Args = string(b), req.ArgOrder
	return call, req, nil
}
