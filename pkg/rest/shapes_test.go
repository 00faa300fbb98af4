package rest

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/rest/query"
)

// remembered is how many shapes e's gateway serves without building, and
// how many it always builds.
func remembered(e *env) (served, built int) {
	e.api.shapes.mu.RLock()
	defer e.api.shapes.mu.RUnlock()
	for _, s := range e.api.shapes.m {
		if s.st.SQL == "" {
			built++
		} else {
			served++
		}
	}
	return served, built
}

// Reads of one shape with other values answer with their own rows: the
// second and later requests take the first one's SQL and their own
// parameters, whatever the values (a number, text with the characters
// a query string encodes, a negated comparison, an embedded filter).
func TestReadShapesGiveEachRequestItsOwnRows(t *testing.T) {
	t.Parallel()
	e := setup(t)
	get := func(path string) string {
		t.Helper()
		r := e.do("GET", path, e.tokA, "")
		if r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		return r.body
	}
	for i, id := range e.labels {
		body := get(fmt.Sprintf("/rest/v1/labels?select=id&id=eq.%d", id))
		if want := fmt.Sprintf(`[{"id":%d}]`, id); body != want {
			t.Errorf("label %d (request %d of the shape): %s, want %s", id, i+1, body, want)
		}
	}
	names := map[string]string{"Alpha Records": "alpha", `Gamma, (Parens) "Quoted"`: "gamma", "delta": "delta"}
	for name, host := range names {
		body := get("/rest/v1/labels?select=label_url&label_name=eq." + url.QueryEscape(name))
		if want := `[{"label_url":"https://` + host + `.bandcamp.com"}]`; body != want {
			t.Errorf("label %q: %s, want %s", name, body, want)
		}
	}
	for _, id := range e.labels[:2] {
		body := get(fmt.Sprintf("/rest/v1/labels?select=id&id=not.eq.%d&order=id", id))
		if strings.Contains(body, fmt.Sprintf(`"id":%d}`, id)) || strings.Count(body, `"id"`) != len(e.labels)-1 {
			t.Errorf("not.eq.%d: %s", id, body)
		}
	}
	for _, id := range e.labels[:2] {
		body := get(fmt.Sprintf("/rest/v1/releases?select=id,labels!inner(id)&labels.id=eq.%d&limit=1", id))
		if !strings.Contains(body, fmt.Sprintf(`"labels":{"id":%d}`, id)) {
			t.Errorf("embedded labels.id=eq.%d: %s", id, body)
		}
	}
	if served, built := remembered(e); served != 4 || built != 0 {
		t.Errorf("%d shapes served from memory and %d always built, want 4 and 0", served, built)
	}
}

// What is not a plain comparison stays in the shape, so a value that
// changes the SQL or its parameters (a list's length, a pattern) makes
// another shape, and a count or a page is part of the shape too.
func TestReadShapesKeepEverythingElse(t *testing.T) {
	t.Parallel()
	e := setup(t)
	count := func(path string, hdr ...string) string {
		t.Helper()
		r := e.do("GET", path, e.tokA, "", hdr...)
		if r.status != 200 && r.status != 206 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		return fmt.Sprintf("%d %s", strings.Count(r.body, `"id"`), r.header.Get("Content-Range"))
	}
	ids := fmt.Sprintf("%d,%d,%d", e.labels[0], e.labels[1], e.labels[2])
	for path, want := range map[string]string{
		"/rest/v1/labels?select=id&id=in.(" + ids + ")":                  "3 0-2/*",
		fmt.Sprintf("/rest/v1/labels?select=id&id=in.(%d)", e.labels[3]): "1 0-0/*",
		"/rest/v1/labels?select=id&label_name=ilike.*a*":                 "4 0-3/*",
		"/rest/v1/labels?select=id&label_name=ilike.delta":               "1 0-0/*",
		"/rest/v1/labels?select=id&id=gt.0&limit=2":                      "2 0-1/*",
		"/rest/v1/labels?select=id&id=gt.0&limit=3":                      "3 0-2/*",
	} {
		if got := count(path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if got := count("/rest/v1/labels?select=id&id=gt.0", "Prefer", "count=exact"); got != "4 0-3/4" {
		t.Errorf("with count=exact: %s, want 4 0-3/4", got)
	}
	if got := count("/rest/v1/labels?select=id&id=gt.0", "Range", "1-2"); got != "2 1-2/*" {
		t.Errorf("with Range 1-2: %s", got)
	}
}

// A schema reload forgets every shape: SQL built against the old cache is
// not served after it.
func TestReadShapesForgottenOnReload(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if r := e.do("GET", fmt.Sprintf("/rest/v1/labels?select=id&id=eq.%d", e.labels[0]), e.tokA, ""); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if served, _ := remembered(e); served != 1 {
		t.Fatalf("%d shapes before the reload, want 1", served)
	}
	if err := e.api.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if served, built := remembered(e); served+built != 0 {
		t.Fatalf("%d shapes after the reload", served+built)
	}
}

// The shape text names each key and value with its length, so queries
// that read the same when joined are different shapes.
func TestShapeTextIsUnambiguous(t *testing.T) {
	t.Parallel()
	texts := map[string][]query.Pair{}
	for _, pairs := range [][]query.Pair{
		{{Key: "a", Value: "x&b=y"}},
		{{Key: "a", Value: "x"}, {Key: "b", Value: "y"}},
		{{Key: "a=x&b", Value: "y"}},
		{{Key: "id", Value: "eq.1"}},
		{{Key: "id", Value: "eq."}},
		{{Key: "id", Value: "eq.1?"}},
		{{Key: "id", Value: "not.eq.1"}},
		{{Key: "select", Value: "eq.1"}},
	} {
		text, _, ok := shapeOf(pairs)
		if !ok {
			t.Fatalf("%v: refused", pairs)
		}
		if prev, dup := texts[text]; dup {
			// Only values of comparisons may share a text.
			if len(prev) != 1 || len(pairs) != 1 || !strings.HasPrefix(prev[0].Value, "eq.") || !strings.HasPrefix(pairs[0].Value, "eq.") {
				t.Errorf("%v and %v share the shape %q", prev, pairs, text)
			}
		}
		texts[text] = pairs
	}
	if _, values, _ := shapeOf([]query.Pair{{Key: "id", Value: "eq.1?"}, {Key: "n", Value: "not.lte.x"}, {Key: "o", Value: "like.x"}}); len(values) != 2 || values[0] != "1?" || values[1] != "x" {
		t.Errorf("values %q, want [1? x]", values)
	}
}

// A request that carries the marker the shapes are learnt with is built
// as always and not remembered.
func TestReadShapesRefuseTheMarker(t *testing.T) {
	t.Parallel()
	e := setup(t)
	path := "/rest/v1/labels?select=id&label_name=eq." + url.QueryEscape(shapeMarker+"0")
	if r := e.do("GET", path, e.tokA, ""); r.status != 200 || r.body != "[]" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if served, built := remembered(e); served+built != 0 {
		t.Fatalf("a request with the marker left %d shapes", served+built)
	}
}

// callsShapeSQL: functions called with named arguments (one with a
// default, so two argument sets reach it), returning a set to filter, and
// taking the whole body.
const callsShapeSQL = `CREATE FUNCTION public.add(a int, b int DEFAULT 10) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
	CREATE FUNCTION public.echo_text(t text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT t';
	CREATE FUNCTION public.series(n int) RETURNS SETOF int LANGUAGE sql IMMUTABLE AS 'SELECT generate_series(1, n)';
	CREATE FUNCTION public.whole(json) RETURNS json LANGUAGE sql IMMUTABLE AS 'SELECT $1';
	GRANT EXECUTE ON FUNCTION public.add(int, int), public.echo_text(text), public.series(int), public.whole(json) TO anon`

// Calls by POST of one shape — function, argument names, query — take the
// first call's SQL with their own body and filter values: each answers
// its own result, whatever the body holds or the order of its members.
// Another set of argument names is another shape; a GET's call, whose
// arguments are in the query string, is never remembered.
func TestCallShapesGiveEachCallItsOwnResult(t *testing.T) {
	t.Parallel()
	e := setup(t, callsShapeSQL)
	call := func(method, path, body, want string) {
		t.Helper()
		r := e.do(method, "/rest/v1/rpc/"+path, "", body)
		if r.status != 200 || r.body != want {
			t.Fatalf("%s %s %s: %d %s, want %s", method, path, body, r.status, r.body, want)
		}
	}
	call("POST", "add", `{"a":1,"b":2}`, "3")
	call("POST", "add", `{"a":5,"b":-7}`, "-2")
	call("POST", "add", `{"b":3,"a":4}`, "7")
	call("POST", "add", `{"a":1}`, "11")
	call("POST", "add", `{"a":2}`, "12")
	call("POST", "echo_text", `{"t":"it's \"quoted\", ü"}`, `"it's \"quoted\", ü"`)
	call("POST", "echo_text", `{"t":"$1 ::text"}`, `"$1 ::text"`)
	call("POST", "series?series=gt.2", `{"n":5}`, "[3, 4, 5]")
	call("POST", "series?series=gt.1", `{"n":3}`, "[2, 3]")
	call("POST", "whole", `[1, 2]`, "[1, 2]")
	call("POST", "whole", `{"x": 1}`, `{"x": 1}`)
	// add with two argument sets, echo_text, series, and whole twice: an
	// object body's member names are part of the key, an array has none.
	if served, built := remembered(e); served != 6 || built != 0 {
		t.Errorf("%d shapes served from memory and %d always built, want 6 and 0", served, built)
	}
	call("GET", "add?a=1&b=2", "", "3")
	call("GET", "add?a=2&b=2", "", "4")
	if served, built := remembered(e); served != 6 || built != 0 {
		t.Errorf("after GET calls: %d served, %d built, want 6 and 0", served, built)
	}
}
