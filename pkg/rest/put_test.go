package rest

import (
	"context"
	"testing"
)

const putSQL = `
CREATE TABLE public.kv (k text PRIMARY KEY, v int, note text DEFAULT 'none');
CREATE TABLE public.grid (x int, y int, val text NOT NULL, PRIMARY KEY (x, y));
CREATE TABLE public.nopk (a int, b text);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.kv, public.grid, public.nopk TO authenticated;
GRANT SELECT ON public.kv TO anon;
INSERT INTO public.kv VALUES ('a', 1, 'first');
INSERT INTO public.grid VALUES (1, 1, 'one-one');
`

// TestPutUpsert: as PostgREST, PUT answers 201 when it created the row
// and 200 (204 with return=minimal) when it updated it.
func TestPutUpsert(t *testing.T) {
	t.Parallel()
	e := setup(t, putSQL)
	kv := "/rest/v1/kv"
	rep := []string{"Prefer", "return=representation"}
	e.runScenarios(t, []scenario{
		{name: "insert minimal", method: "PUT", path: kv + "?k=eq.b", who: "A", body: `{"k":"b","v":2}`, status: 201},
		{name: "inserted row", method: "GET", path: kv + "?k=eq.b&select=k,v,note", who: "A", status: 200, json: `[{"k":"b","v":2,"note":"none"}]`},
		{name: "update representation", method: "PUT", path: kv + "?k=eq.a&select=k,v", who: "A", body: `{"k":"a","v":10}`, hdr: rep, status: 200,
			json: `[{"k":"a","v":10}]`},
		{name: "columns not in body keep their value", method: "GET", path: kv + "?k=eq.a&select=note", who: "A", status: 200, json: `[{"note":"first"}]`},
		{name: "singular representation", method: "PUT", path: kv + "?k=eq.c", who: "A", body: `{"k":"c","v":3}`,
			hdr: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"}, status: 201, json: `{"k":"c","v":3,"note":"none"}`},
		{name: "headers-only", method: "PUT", path: kv + "?k=eq.d", who: "A", body: `{"k":"d","v":4}`, hdr: []string{"Prefer", "return=headers-only"}, status: 201},
		{name: "one-element array body", method: "PUT", path: kv + "?k=eq.e", who: "A", body: `[{"k":"e","v":5}]`, status: 201},
		{name: "update minimal", method: "PUT", path: kv + "?k=eq.e", who: "A", body: `{"k":"e","v":6}`, status: 204},
		{name: "composite key with number values", method: "PUT", path: "/rest/v1/grid?y=eq.2&x=eq.1", who: "A", body: `{"x":1,"y":2,"val":"one-two"}`, hdr: rep, status: 201,
			json: `[{"x":1,"y":2,"val":"one-two"}]`},
		{name: "composite key update", method: "PUT", path: "/rest/v1/grid?x=eq.1&y=eq.1&select=val", who: "A", body: `{"x":1,"y":1,"val":"changed"}`, hdr: rep, status: 200,
			json: `[{"val":"changed"}]`},
		{name: "body key differs", method: "PUT", path: kv + "?k=eq.a", who: "A", body: `{"k":"z","v":1}`, status: 400, code: "PGRST115"},
		{name: "body key missing", method: "PUT", path: kv + "?k=eq.a", who: "A", body: `{"v":1}`, status: 400, code: "PGRST115"},
		{name: "body key null", method: "PUT", path: kv + "?k=eq.null", who: "A", body: `{"k":null}`, status: 400, code: "PGRST115"},
		{name: "many rows", method: "PUT", path: kv + "?k=eq.a", who: "A", body: `[{"k":"a"},{"k":"a"}]`, status: 400, code: "PGRST115"},
		{name: "number vs string key", method: "PUT", path: "/rest/v1/grid?x=eq.1&y=eq.3", who: "A", body: `{"x":1,"y":4,"val":"v"}`, status: 400, code: "PGRST115"},
		{name: "no filter", method: "PUT", path: kv, who: "A", body: `{"k":"a"}`, status: 405, code: "PGRST105"},
		{name: "partial composite key", method: "PUT", path: "/rest/v1/grid?x=eq.1", who: "A", body: `{"x":1,"y":1,"val":"v"}`, status: 405, code: "PGRST105"},
		{name: "extra filter", method: "PUT", path: kv + "?k=eq.a&v=eq.1", who: "A", body: `{"k":"a"}`, status: 405, code: "PGRST105"},
		{name: "non-eq operator", method: "PUT", path: kv + "?k=gte.a", who: "A", body: `{"k":"a"}`, status: 405, code: "PGRST105"},
		{name: "negated eq", method: "PUT", path: kv + "?k=not.eq.a", who: "A", body: `{"k":"a"}`, status: 405, code: "PGRST105"},
		{name: "repeated key filter", method: "PUT", path: "/rest/v1/grid?x=eq.1&x=eq.1", who: "A", body: `{"x":1,"y":1,"val":"v"}`, status: 405, code: "PGRST105"},
		{name: "logic filter", method: "PUT", path: kv + "?or=(k.eq.a)", who: "A", body: `{"k":"a"}`, status: 405, code: "PGRST105"},
		{name: "table without primary key", method: "PUT", path: "/rest/v1/nopk?a=eq.1", who: "A", body: `{"a":1}`, status: 405, code: "PGRST105"},
		{name: "limit refused", method: "PUT", path: kv + "?k=eq.a&limit=1", who: "A", body: `{"k":"a"}`, status: 400, code: "PGRST114"},
		{name: "unknown column", method: "PUT", path: kv + "?k=eq.a", who: "A", body: `{"k":"a","nope":1}`, status: 400, code: "PGRST204"},
		{name: "invalid body", method: "PUT", path: kv + "?k=eq.a", who: "A", body: `{"k":`, status: 400, code: "PGRST102"},
		{name: "anon lacks insert", method: "PUT", path: kv + "?k=eq.q", who: "anon", body: `{"k":"q"}`, status: 401, code: "42501"},
		{name: "options lists PUT", method: "OPTIONS", path: kv, who: "A", status: 200, header: map[string]string{"Allow": "OPTIONS,GET,HEAD,POST,PUT,PATCH,DELETE"}},
	})
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM public.kv").Scan(&n); err != nil || n != 5 {
		t.Fatalf("kv rows = %d (%v), want 5", n, err)
	}
}
