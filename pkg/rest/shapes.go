package rest

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// A read's SQL is remembered per request shape (API.shapes): the query
// string with the value of every plain comparison (col=eq.5, not.lt., …)
// taken out, and everything else the builder reads (schema cache, table,
// settings, page, count, format). Requests of one shape differ only in
// those values, which the builder binds verbatim as parameters, so a
// remembered shape gives the statement by putting the request's values in
// place of the first request's: building a read's SQL was ~8 % of the
// gateway's CPU on member PK reads (docs/performance.md), looking it up
// is a map access.
//
// A shape is remembered only once it has shown that: its first request is
// built twice, once as sent and once with an unguessable marker in place
// of each taken-out value, and the two must give the same SQL, every
// parameter must be exactly a marker or hold none, and the markers
// replaced by the request's values must give exactly the parameters built
// from them. A shape that fails is remembered as such and always built.
//
// A call by POST is remembered the same way (rpcStatement), its body being
// one more value: the builder binds it whole, and the SQL depends only on
// the argument names, which are part of the key with the function they
// resolved to.

// shapeKey is everything a read's or a call's SQL depends on. sc is the
// schema cache the SQL was built against: after a reload no old shape is
// found.
type shapeKey struct {
	sc    *schema.Cache
	table *schema.Table
	// A call's (rpcStatement): the function the arguments resolved to,
	// their names, and how the body is passed (whole, as hex).
	fn         *schema.Func
	args       string
	whole, hex bool
	agg        bool
	maxRows    int64
	opts       shapeOpts
	query      string
}

// shapeOpts is query.ReadOpts without pointers.
type shapeOpts struct {
	count, planned, head, strip bool
	format                      query.Format
	estimateAbove               int64
	hasLimit                    bool
	limit, offset               int64
}

// shape is a remembered read: its statement and, per parameter, the index
// of the request value it is (-1: a constant, kept from the first build).
// An empty st.SQL marks a shape that is always built.
type shape struct {
	st    query.Statement
	slots []int
}

// shapeMarker prefixes the markers of the test build: random per process,
// so no request can contain one (a request that does is not remembered).
var shapeMarker = func() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "\x01lb" + hex.EncodeToString(b) + ":"
}()

// comparisonOps are the operators whose value the builder binds as it is
// sent (filterSQL's opCompare without (any)/(all)).
var comparisonOps = []string{"eq.", "neq.", "gt.", "gte.", "lt.", "lte."}

// notFilters are the parameters that are never a column's filter.
var notFilters = map[string]bool{"select": true, "order": true, "limit": true, "offset": true,
	"columns": true, "on_conflict": true, "or": true, "and": true, "not.or": true, "not.and": true}

// shapeOf splits pairs into the shape's query text and the values taken
// out of it, in order. The text gives every key and value with its length
// first, so no two different queries share one. ok is false when the query
// holds a marker.
func shapeOf(pairs []query.Pair) (text string, values []string, ok bool) {
	var b []byte
	for _, p := range pairs {
		b = appendField(b, p.Key)
		v := p.Value
		if n := comparisonPrefix(p); n > 0 {
			values = append(values, v[n:])
			v = v[:n] // the operator; its value is a parameter
			b = append(b, '?')
		}
		b = appendField(b, v)
	}
	text = string(b)
	return text, values, !hasMarker(text) && !slices.ContainsFunc(values, hasMarker)
}

// appendField appends s with its length first ("3:abc"), so that fields
// written one after another never read as other fields.
func appendField(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}

// comparisonPrefix is the length of "[not.]op." when p is a plain
// comparison of a column, else 0.
func comparisonPrefix(p query.Pair) int {
	if notFilters[p.Key] || strings.HasSuffix(p.Key, ".or") || strings.HasSuffix(p.Key, ".and") {
		return 0
	}
	v, n := p.Value, 0
	if strings.HasPrefix(v, "not.") {
		v, n = v[4:], 4
	}
	for _, op := range comparisonOps {
		if strings.HasPrefix(v, op) {
			return n + len(op)
		}
	}
	return 0
}

func keyOpts(o query.ReadOpts) shapeOpts {
	k := shapeOpts{count: o.Count, planned: o.Planned, head: o.Head, strip: o.StripNulls,
		format: o.Format, estimateAbove: o.EstimateAbove}
	if o.Limit != nil {
		k.hasLimit, k.limit = true, *o.Limit
	}
	if o.Offset != nil {
		k.offset = *o.Offset
	}
	return k
}

// readStatement is the statement of a read of t: a remembered shape's,
// or built (and its shape tried).
func (a *API) readStatement(rc *reqCtx, t *schema.Table, pairs []query.Pair, req *query.Request, o query.ReadOpts) (*query.Statement, error) {
	k := shapeKey{sc: rc.sc, table: t, agg: rc.set.Aggregates, maxRows: rc.set.MaxRows, opts: keyOpts(o)}
	return a.shaped(k, pairs, nil,
		func() (*query.Statement, error) { return a.builder(rc).Read(query.Target{Table: t}, req, o) },
		func(marked []query.Pair, _ []string) (*query.Statement, error) {
			req, err := query.Parse(marked, nil)
			if err != nil {
				return nil, err
			}
			return a.builder(rc).Read(query.Target{Table: t}, req, o)
		})
}

// rpcStatement is the statement of a call: a remembered shape's, or built
// (and its shape tried). The body is one more value of the shape: the
// builder binds it whole, and the SQL depends only on its argument names.
// Only POST's calls are remembered: a GET's arguments are in the query
// string, so each of their values would make a shape of its own.
func (a *API) rpcStatement(rc *reqCtx, call query.Call, req *query.Request, pairs []query.Pair, post bool, o query.ReadOpts) (*query.Statement, error) {
	build := func() (*query.Statement, error) { return a.builder(rc).RPC(call, req, o) }
	if !post {
		return build()
	}
	var args []byte
	for _, name := range call.Args {
		args = appendField(args, name)
	}
	k := shapeKey{sc: rc.sc, fn: call.Func, args: string(args), whole: call.SingleJSON, hex: call.Hex,
		agg: rc.set.Aggregates, maxRows: rc.set.MaxRows, opts: keyOpts(o)}
	return a.shaped(k, pairs, []string{call.Body}, build, func(marked []query.Pair, body []string) (*query.Statement, error) {
		req, err := query.Parse(marked, nil)
		if err != nil {
			return nil, err
		}
		c := call
		c.Body = body[0]
		return a.builder(rc).RPC(c, req, o)
	})
}

// shaped is the statement of a request whose shape is k with pairs' text:
// filled from a remembered shape, or built as sent by build. The shape of
// a request built for the first time is tried by rebuild, given the pairs
// and extra (values bound whole, after the comparisons') with markers.
func (a *API) shaped(k shapeKey, pairs []query.Pair, extra []string,
	build func() (*query.Statement, error), rebuild func(marked []query.Pair, extra []string) (*query.Statement, error),
) (*query.Statement, error) {
	text, values, ok := shapeOf(pairs)
	if !ok || slices.ContainsFunc(extra, hasMarker) {
		return build()
	}
	values = append(values, extra...)
	k.query = text
	if s, known := a.shapes.get(k); known {
		if s.st.SQL == "" {
			return build()
		}
		return s.fill(values), nil
	}
	st, err := build()
	if err != nil {
		return nil, err
	}
	a.shapes.put(k, learnShape(pairs, len(extra), st, values, rebuild))
	return st, nil
}

func hasMarker(v string) bool { return strings.Contains(v, shapeMarker) }

// learnShape builds the request again with markers for values (the last
// nExtra of them passed to rebuild as they are, the others in pairs) and
// returns the shape if it reproduces st exactly, else the always-built
// shape.
func learnShape(pairs []query.Pair, nExtra int, st *query.Statement, values []string,
	rebuild func(marked []query.Pair, extra []string) (*query.Statement, error),
) *shape {
	never := &shape{}
	marked := make([]query.Pair, len(pairs))
	n := 0
	for i, p := range pairs {
		marked[i] = p
		if c := comparisonPrefix(p); c > 0 {
			marked[i].Value = p.Value[:c] + shapeMarker + strconv.Itoa(n)
			n++
		}
	}
	extra := make([]string, nExtra)
	for i := range extra {
		extra[i] = shapeMarker + strconv.Itoa(n+i)
	}
	mst, err := rebuild(marked, extra)
	// st was built from a request without markers (shaped), so SQL equal
	// to it holds no marker either: no value was written into the text.
	if err != nil || mst.SQL != st.SQL || mst.CountSQL != st.CountSQL || len(mst.Args) != len(st.Args) {
		return never
	}
	s := &shape{st: *mst, slots: make([]int, len(mst.Args))}
	for i, arg := range mst.Args {
		s.slots[i] = -1
		if arg == nil || !strings.Contains(*arg, shapeMarker) {
			continue
		}
		idx, err := strconv.Atoi(strings.TrimPrefix(*arg, shapeMarker))
		if err != nil || idx < 0 || idx >= len(values) {
			return never // a marker inside a longer value: not bound verbatim
		}
		s.slots[i] = idx
	}
	got := s.fill(values)
	for i := range got.Args {
		if (got.Args[i] == nil) != (st.Args[i] == nil) || (got.Args[i] != nil && *got.Args[i] != *st.Args[i]) {
			return never
		}
	}
	return s
}

// fill is the shape's statement with values as its parameters.
func (s *shape) fill(values []string) *query.Statement {
	st := s.st
	st.Args = make([]*string, len(s.slots))
	for i, slot := range s.slots {
		if slot < 0 {
			st.Args[i] = s.st.Args[i]
		} else {
			st.Args[i] = &values[slot]
		}
	}
	return &st
}
