package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// grammarSQL adds tables covering every operator's column type and two
// foreign keys to one table, plus functions for the RPC rules.
const grammarSQL = `
CREATE TABLE public.people (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE public.gadgets (
  id int PRIMARY KEY, name text NOT NULL, data jsonb, tags text[] NOT NULL DEFAULT '{}', span int4range,
  doc tsvector, price numeric DEFAULT 9.5,
  owner_id int REFERENCES public.people (id), maker_id int REFERENCES public.people (id));
GRANT SELECT, INSERT, UPDATE, DELETE ON public.people, public.gadgets TO authenticated;
INSERT INTO public.people VALUES (1, 'Ann'), (2, 'Bob');
INSERT INTO public.gadgets (id, name, data, tags, span, doc, owner_id, maker_id) VALUES
  (1, 'alpha', '{"color":"red","size":1}', '{a,b}', '[1,5)', to_tsvector('english', 'the quick brown cats'), 1, 2),
  (2, 'beta, (b)', '{"color":"blue","size":2}', '{b,"c d"}', '[10,20)', to_tsvector('english', 'lazy dogs sleep'), 2, 1),
  (3, 'gamma', NULL, '{}', NULL, NULL, NULL, NULL);
CREATE FUNCTION public.add_them(a int, b int DEFAULT 10) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b';
CREATE FUNCTION public.add_them(a int, b int, c int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b + c';
CREATE FUNCTION public.shout(public.gadgets) RETURNS text LANGUAGE sql STABLE AS 'SELECT upper($1.name)';
CREATE FUNCTION public.gadgets_named(pat text) RETURNS SETOF public.gadgets LANGUAGE sql STABLE AS 'SELECT * FROM public.gadgets WHERE name LIKE pat';
CREATE FUNCTION public.bump(n int) RETURNS int LANGUAGE sql VOLATILE AS 'INSERT INTO public.people VALUES (n, ''new'') RETURNING id';
CREATE FUNCTION public.echo_json(jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS 'SELECT $1';
CREATE FUNCTION public.nothing() RETURNS void LANGUAGE sql AS '';
CREATE FUNCTION public.teapot() RETURNS text LANGUAGE plpgsql STABLE AS $$
BEGIN
  PERFORM set_config('response.status', '418', true);
  PERFORM set_config('response.headers', '[{"X-Brew":"tea"}]', true);
  RETURN 'short and stout';
END $$;
CREATE FUNCTION public.payment() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code":"PAY","message":"Payment Required"}', DETAIL = '{"status":402,"headers":{"X-Why":"quota"}}';
END $$;
CREATE FUNCTION public.fail_plain() RETURNS void LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'I refuse' USING DETAIL = 'nope', HINT = 'no'; END $$;
CREATE FUNCTION public.whoami() RETURNS jsonb LANGUAGE sql STABLE AS
  $$SELECT jsonb_build_object('role', current_user, 'sub', auth.uid(), 'method', current_setting('request.method'), 'path', current_setting('request.path'), 'ua', current_setting('request.headers')::json->>'x-test')$$;
CREATE FUNCTION public.slow() RETURNS int LANGUAGE sql STABLE AS 'SELECT 1 FROM pg_sleep(10)';
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public TO anon, authenticated;
`

type scenario struct {
	name   string
	method string
	path   string
	who    string // anon, A, B, service, none (no Authorization), or a raw bearer
	body   string
	hdr    []string
	status int
	code   string // error code, when an error is expected
	json   string // exact JSON body, when set
	has    []string
	header map[string]string
}

func (e *env) bearer(who string) string {
	switch who {
	case "", "none":
		return ""
	case "anon":
		return e.cfg.AnonKey
	case "A":
		return e.tokA
	case "B":
		return e.tokB
	case "service":
		return e.cfg.ServiceRoleKey
	}
	return who
}

func (e *env) runScenarios(t *testing.T, list []scenario) {
	for _, s := range list {
		t.Run(s.name, func(t *testing.T) {
			r := e.do(s.method, s.path, e.bearer(s.who), s.body, s.hdr...)
			if r.status != s.status {
				t.Fatalf("status %d, want %d; body %s", r.status, s.status, r.body)
			}
			if s.code != "" {
				var body struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				}
				if err := json.Unmarshal([]byte(r.body), &body); err != nil || body.Code != s.code {
					t.Fatalf("code %q, want %q; body %s", body.Code, s.code, r.body)
				}
				for _, k := range []string{`"details"`, `"hint"`, `"message"`} {
					if !strings.Contains(r.body, k) {
						t.Fatalf("error body lacks %s: %s", k, r.body)
					}
				}
			}
			if s.json != "" {
				var got, want any
				if err := json.Unmarshal([]byte(r.body), &got); err != nil {
					t.Fatalf("body not JSON: %s", r.body)
				}
				_ = json.Unmarshal([]byte(s.json), &want)
				gb, _ := json.Marshal(got)
				wb, _ := json.Marshal(want)
				if string(gb) != string(wb) {
					t.Fatalf("body\n got %s\nwant %s", gb, wb)
				}
			}
			for _, h := range s.has {
				if !strings.Contains(r.body, h) {
					t.Fatalf("body lacks %q: %s", h, r.body)
				}
			}
			for k, v := range s.header {
				if got := r.header.Get(k); got != v {
					t.Fatalf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestGrammarScenarios(t *testing.T) {
	t.Parallel()
	e := setup(t, grammarSQL)
	g := "/rest/v1/gadgets?"
	ids := func(s string) string { return s }
	e.runScenarios(t, []scenario{
		{name: "select and order", method: "GET", path: g + "select=id&order=id.desc", who: "A", status: 200, json: `[{"id":3},{"id":2},{"id":1}]`},
		{name: "eq", method: "GET", path: g + "select=id&name=eq.alpha", who: "A", status: 200, json: `[{"id":1}]`},
		{name: "neq gt gte lt lte", method: "GET", path: g + "select=id&id=neq.2&id=gte.1&id=lte.3&id=gt.0&id=lt.4&order=id", who: "A", status: 200, json: `[{"id":1},{"id":3}]`},
		{name: "like star", method: "GET", path: g + "select=id&name=like.*et*", who: "A", status: 200, json: `[{"id":2}]`},
		{name: "ilike", method: "GET", path: g + "select=id&name=ilike.ALP*", who: "A", status: 200, json: `[{"id":1}]`},
		{name: "match imatch", method: "GET", path: g + "select=id&name=match.^g&name=imatch.A$", who: "A", status: 200, json: `[{"id":3}]`},
		{name: "in with comma and parens", method: "GET", path: g + "select=id&name=in.(" + ids("%22beta%2C%20(b)%22,alpha") + ")&order=id", who: "A", status: 200, json: `[{"id":1},{"id":2}]`},
		{name: "is null / not null", method: "GET", path: g + "select=id&data=is.null", who: "A", status: 200, json: `[{"id":3}]`},
		{name: "not is null", method: "GET", path: g + "select=id&data=not.is.null&order=id", who: "A", status: 200, json: `[{"id":1},{"id":2}]`},
		{name: "isdistinct", method: "GET", path: g + "select=id&owner_id=isdistinct.1&order=id", who: "A", status: 200, json: `[{"id":2},{"id":3}]`},
		{name: "cs cd ov arrays", method: "GET", path: g + "select=id&tags=cs.{b}&tags=cd.{a,b,c d,e}&tags=ov.{a,z}", who: "A", status: 200, json: `[{"id":1}]`},
		{name: "cs jsonb", method: "GET", path: g + "select=id&data=cs." + "%7B%22color%22%3A%22blue%22%7D", who: "A", status: 200, json: `[{"id":2}]`},
		{name: "range ops", method: "GET", path: g + "select=id&span=sl.[6,8)&span=nxr.[0,9)&span=adj.[5,6)&span=ov.[2,3)", who: "A", status: 200, json: `[{"id":1}]`},
		{name: "sr nxl", method: "GET", path: g + "select=id&span=sr.[1,3)&span=nxl.[0,30)", who: "A", status: 200, json: `[{"id":2}]`},
		// nxl is &> ("does not extend to the left of"), nxr is &< ("does not
		// extend to the right of"), as PostgREST maps them; swapped, each
		// would answer both rows.
		{name: "nxl is &>", method: "GET", path: g + "select=id&span=nxl.[5,30)&order=id", who: "A", status: 200, json: `[{"id":2}]`},
		{name: "nxr is &<", method: "GET", path: g + "select=id&span=nxr.[0,6)&order=id", who: "A", status: 200, json: `[{"id":1}]`},
		{name: "fts on tsvector", method: "GET", path: g + "select=id&doc=fts(english).cats", who: "A", status: 200, json: `[{"id":1}]`},
		{name: "plfts phfts wfts", method: "GET", path: g + "select=id&doc=plfts.lazy%20dogs&doc=phfts(english).lazy%20dogs&doc=wfts(english).dogs%20-cats", who: "A", status: 200, json: `[{"id":2}]`},
		{name: "fts on text column", method: "GET", path: g + "select=id&name=fts.gamma", who: "A", status: 200, json: `[{"id":3}]`},
		{name: "any all", method: "GET", path: g + "select=id&name=like(any).{al*,ga*}&id=gt(all).{0,2}", who: "A", status: 200, json: `[{"id":3}]`},
		{name: "or and not nested", method: "GET", path: g + "select=id&or=(id.eq.1,and(name.eq.%22beta%2C%20(b)%22,id.gt.1))&not.or=(id.eq.3)&order=id", who: "A", status: 200, json: `[{"id":1},{"id":2}]`},
		{name: "repeated filters anded", method: "GET", path: g + "select=id&id=gt.1&id=lt.3", who: "A", status: 200, json: `[{"id":2}]`},
		{name: "json path select and filter", method: "GET", path: g + "select=id,color:data->>color,size:data->size&data->>color=eq.red", who: "A", status: 200, json: `[{"id":1,"color":"red","size":1}]`},
		{name: "cast", method: "GET", path: g + "select=id::text&id=eq.1", who: "A", status: 200, json: `[{"id":"1"}]`},
		{name: "order nulls", method: "GET", path: g + "select=id&order=owner_id.desc.nullslast,id", who: "A", status: 200, json: `[{"id":2},{"id":1},{"id":3}]`},
		{name: "limit offset", method: "GET", path: g + "select=id&order=id&limit=1&offset=1", who: "A", status: 200, json: `[{"id":2}]`, header: map[string]string{"Content-Range": "1-1/*"}},
		{name: "embed disambiguated by fk name", method: "GET", path: g + "select=id,owner:people!gadgets_owner_id_fkey(name),maker:people!maker_id(name)&id=eq.1", who: "A", status: 200, json: `[{"id":1,"owner":{"name":"Ann"},"maker":{"name":"Bob"}}]`},
		{name: "ambiguous embed", method: "GET", path: g + "select=id,people(name)", who: "A", status: 300, code: "PGRST201"},
		{name: "one-to-many with hint and modifiers", method: "GET", path: "/rest/v1/people?select=name,gadgets!owner_id(id)&gadgets.order=id.desc&gadgets.limit=1&id=eq.1", who: "A", status: 200, json: `[{"name":"Ann","gadgets":[{"id":1}]}]`},
		{name: "inner embed with filter", method: "GET", path: "/rest/v1/people?select=name,gadgets!owner_id!inner(id)&gadgets.name=eq.alpha", who: "A", status: 200, json: `[{"name":"Ann","gadgets":[{"id":1}]}]`},
		{name: "spread", method: "GET", path: g + "select=id,...people!owner_id(owner_name:name)&id=eq.2", who: "A", status: 200, json: `[{"id":2,"owner_name":"Bob"}]`},
		{name: "related order", method: "GET", path: g + "select=id,owner:people!owner_id(name)&order=owner(name).desc.nullslast", who: "A", status: 200, json: `[{"id":2,"owner":{"name":"Bob"}},{"id":1,"owner":{"name":"Ann"}},{"id":3,"owner":null}]`},
		{name: "exact count and 206", method: "GET", path: g + "select=id&order=id&limit=2", who: "A", hdr: []string{"Prefer", "count=exact"}, status: 206, header: map[string]string{"Content-Range": "0-1/3", "Preference-Applied": "count=exact"}},
		{name: "range header", method: "GET", path: g + "select=id&order=id", who: "A", hdr: []string{"Range", "1-1", "Range-Unit", "items"}, status: 200, json: `[{"id":2}]`, header: map[string]string{"Content-Range": "1-1/*"}},
		{name: "range beyond total is 416", method: "GET", path: g + "select=id&offset=10", who: "A", hdr: []string{"Prefer", "count=exact"}, status: 416, code: "PGRST103"},
		{name: "inverted range header", method: "GET", path: g, who: "A", hdr: []string{"Range", "5-1"}, status: 416, code: "PGRST103"},
		{name: "head count", method: "HEAD", path: g, who: "A", hdr: []string{"Prefer", "count=exact"}, status: 200, header: map[string]string{"Content-Range": "0-2/3"}},
		// The planner estimates this freshly filled, unanalysed table at more
		// rows than it has, so the page is partial: 206, as PostgREST.
		{name: "head planned count", method: "HEAD", path: g, who: "A", hdr: []string{"Prefer", "count=planned"}, status: 206},
		{name: "single object", method: "GET", path: g + "select=id&id=eq.1", who: "A", hdr: []string{"Accept", "application/vnd.pgrst.object+json"}, status: 200, json: `{"id":1}`},
		{name: "single object, many rows", method: "GET", path: g + "select=id", who: "A", hdr: []string{"Accept", "application/vnd.pgrst.object+json"}, status: 406, code: "PGRST116", has: []string{"The result contains 3 rows"}},
		{name: "nulls stripped", method: "GET", path: g + "select=id,data&id=eq.3", who: "A", hdr: []string{"Accept", "application/vnd.pgrst.array+json;nulls=stripped"}, status: 200, json: `[{"id":3}]`},
		{name: "csv", method: "GET", path: g + "select=id,name&order=id&limit=2", who: "A", hdr: []string{"Accept", "text/csv"}, status: 200, has: []string{"id,name\n1,alpha\n2,\"beta, (b)\""}},
		{name: "unsupported accept", method: "GET", path: g, who: "A", hdr: []string{"Accept", "text/html"}, status: 406, code: "PGRST107"},
		{name: "unknown schema", method: "GET", path: g, who: "A", hdr: []string{"Accept-Profile", "auth"}, status: 406, code: "PGRST106"},
		{name: "unknown table with hint", method: "GET", path: "/rest/v1/gadget", who: "A", status: 404, code: "PGRST205", has: []string{"public.gadgets"}},
		{name: "unknown column with hint", method: "GET", path: g + "select=nme", who: "A", status: 400, code: "42703", has: []string{"gadgets.name"}},
		{name: "bad value type", method: "GET", path: g + "id=eq.abc", who: "A", status: 400, code: "22P02"},
		{name: "parse error", method: "GET", path: g + "id=zz.1", who: "A", status: 400, code: "PGRST100"},
		{name: "filter on non-embedded", method: "GET", path: g + "people.id=eq.1", who: "A", status: 400, code: "PGRST108"},
		{name: "unsupported method", method: "TRACE", path: g, who: "A", body: `{}`, status: 405, code: "PGRST117"},
		{name: "strict prefer", method: "GET", path: g, who: "A", hdr: []string{"Prefer", "handling=strict, bogus=1"}, status: 400, code: "PGRST122"},
	})
}

func TestWriteScenarios(t *testing.T) {
	t.Parallel()
	e := setup(t, grammarSQL)
	g := "/rest/v1/gadgets"
	e.runScenarios(t, []scenario{
		{name: "insert minimal", method: "POST", path: g, who: "A", body: `{"id":10,"name":"ten"}`, status: 201, header: map[string]string{"Content-Range": "*/*"}},
		{name: "insert representation", method: "POST", path: g + "?select=id,name,price,owner:people!owner_id(name)", who: "A", body: `{"id":11,"name":"eleven","owner_id":1}`, hdr: []string{"Prefer", "return=representation"}, status: 201, json: `[{"id":11,"name":"eleven","price":9.5,"owner":{"name":"Ann"}}]`},
		{name: "insert headers-only gives Location", method: "POST", path: g, who: "A", body: `{"id":12,"name":"twelve"}`, hdr: []string{"Prefer", "return=headers-only"}, status: 201, header: map[string]string{"Location": "/gadgets?id=eq.12"}},
		{name: "bulk insert with columns", method: "POST", path: g + "?columns=id,name,price&select=id,price", who: "A", body: `[{"id":13,"name":"a","price":2},{"id":14,"name":"b","extra":1}]`, hdr: []string{"Prefer", "return=representation, count=exact"}, status: 201, json: `[{"id":13,"price":2},{"id":14,"price":null}]`, header: map[string]string{"Content-Range": "*/2"}},
		{name: "missing=default", method: "POST", path: g + "?columns=id,name,tags&select=id,tags", who: "A", body: `[{"id":15,"name":"a"},{"id":16,"name":"b","tags":["y"]}]`, hdr: []string{"Prefer", "return=representation,missing=default"}, status: 201, has: []string{`"id":15,"tags":[]`, `"id":16,"tags":["y"]`}, header: map[string]string{"Preference-Applied": "missing=default, return=representation"}},
		{name: "keys must match without columns", method: "POST", path: g, who: "A", body: `[{"id":17,"name":"a"},{"id":18}]`, status: 400, code: "PGRST102"},
		{name: "unknown column", method: "POST", path: g, who: "A", body: `{"id":19,"nam":"x"}`, status: 400, code: "PGRST204"},
		{name: "invalid json", method: "POST", path: g, who: "A", body: `{"id":`, status: 400, code: "PGRST102"},
		{name: "duplicate key is 409", method: "POST", path: g, who: "A", body: `{"id":1,"name":"dup"}`, status: 409, code: "23505"},
		{name: "foreign key is 409", method: "POST", path: g, who: "A", body: `{"id":20,"name":"x","owner_id":99}`, status: 409, code: "23503"},
		{name: "not null is 400", method: "POST", path: g, who: "A", body: `{"id":21}`, status: 400, code: "23502"},
		{name: "upsert merge", method: "POST", path: g + "?on_conflict=id&select=id,name", who: "A", body: `{"id":1,"name":"alpha2"}`, hdr: []string{"Prefer", "resolution=merge-duplicates,return=representation"}, status: 200, json: `[{"id":1,"name":"alpha2"}]`},
		{name: "upsert ignore", method: "POST", path: g + "?select=id,name", who: "A", body: `[{"id":1,"name":"ignored"},{"id":22,"name":"new"}]`, hdr: []string{"Prefer", "resolution=ignore-duplicates,return=representation"}, status: 201, json: `[{"id":22,"name":"new"}]`},
		{name: "insert single object rolls back on 2 rows", method: "POST", path: g + "?select=id", who: "A", body: `[{"id":23,"name":"a"},{"id":24,"name":"b"}]`, hdr: []string{"Prefer", "return=representation", "Accept", "application/vnd.pgrst.object+json"}, status: 406, code: "PGRST116"},
		{name: "rolled back rows are absent", method: "GET", path: g + "?id=in.(23,24)&select=id", who: "A", status: 200, json: `[]`},
		{name: "patch representation", method: "PATCH", path: g + "?id=eq.2&select=id,name,tags", who: "A", body: `{"name":"beta2","tags":["q"]}`, hdr: []string{"Prefer", "return=representation"}, status: 200, json: `[{"id":2,"name":"beta2","tags":["q"]}]`},
		{name: "patch minimal", method: "PATCH", path: g + "?id=eq.3", who: "A", body: `{"data":{"k":[1,2]}}`, status: 204},
		{name: "patched json", method: "GET", path: g + "?id=eq.3&select=data", who: "A", status: 200, json: `[{"data":{"k":[1,2]}}]`},
		{name: "patch with limit and order", method: "PATCH", path: g + "?order=id.desc&limit=1&select=id", who: "A", body: `{"price":1}`, hdr: []string{"Prefer", "return=representation"}, status: 200, json: `[{"id":22}]`},
		{name: "delete with count", method: "DELETE", path: g + "?id=in.(10,11)", who: "A", hdr: []string{"Prefer", "count=exact"}, status: 204, header: map[string]string{"Content-Range": "0-1/2"}},
		{name: "delete representation", method: "DELETE", path: g + "?id=eq.12&select=id", who: "A", hdr: []string{"Prefer", "return=representation"}, status: 200, json: `[{"id":12}]`},
		{name: "body too large", method: "POST", path: g, who: "A", body: `{"name":"` + strings.Repeat("x", 70000) + `"}`, status: 413, code: "PGRST102"},
		{name: "csv body", method: "POST", path: "/rest/v1/people?select=id,name", who: "A", body: "id,name\n30,Cee\n", hdr: []string{"Content-Type", "text/csv", "Prefer", "return=representation"}, status: 201, json: `[{"id":30,"name":"Cee"}]`},
	})
}

func TestRPCScenarios(t *testing.T) {
	t.Parallel()
	e := setup(t, grammarSQL)
	r := "/rest/v1/rpc/"
	e.runScenarios(t, []scenario{
		{name: "scalar by POST", method: "POST", path: r + "add_them", who: "A", body: `{"a":1,"b":2}`, status: 200, json: `3`},
		{name: "default argument", method: "POST", path: r + "add_them", who: "A", body: `{"a":1}`, status: 200, json: `11`},
		{name: "overload by names", method: "POST", path: r + "add_them", who: "A", body: `{"a":1,"b":2,"c":3}`, status: 200, json: `6`},
		{name: "scalar by GET", method: "GET", path: r + "add_them?a=4&b=5", who: "A", status: 200, json: `9`},
		{name: "HEAD", method: "HEAD", path: r + "add_them?a=4", who: "A", status: 200},
		// PostgREST's fuzzy match finds nothing close to "(x)": no hint.
		{name: "unknown args", method: "POST", path: r + "add_them", who: "A", body: `{"x":1}`, status: 404, code: "PGRST202", has: []string{"add_them(x)", `"hint":null`}},
		{name: "close args get a hint", method: "GET", path: r + "add_them?a=1&b=2&smthelse=x", who: "A", status: 404, code: "PGRST202", has: []string{"Could not find the function public.add_them(a, b, smthelse)", "Perhaps you meant to call the function public.add_them(a, b, c)"}},
		{name: "unknown function with hint", method: "POST", path: r + "add_then", who: "A", body: `{}`, status: 404, code: "PGRST202", has: []string{"public.add_them"}},
		{name: "bad argument value", method: "POST", path: r + "add_them", who: "A", body: `{"a":"x"}`, status: 400, code: "22P02"},
		{name: "setof with filters, order, limit", method: "GET", path: r + "gadgets_named?pat=%25a%25&select=id,name&id=gt.1&order=id.desc&limit=1", who: "A", status: 200, json: `[{"id":3,"name":"gamma"}]`},
		{name: "computed field on a function's rows", method: "POST", path: r + "gadgets_named?select=id,shout&shout=eq.ALPHA", who: "A", body: `{"pat":"%a%"}`, status: 200, json: `[{"id":1,"shout":"ALPHA"}]`},
		{name: "setof with embed", method: "POST", path: r + "gadgets_named?select=id,owner:people!owner_id(name)&id=eq.1", who: "A", body: `{"pat":"alpha"}`, status: 200, json: `[{"id":1,"owner":{"name":"Ann"}}]`},
		{name: "setof count", method: "GET", path: r + "gadgets_named?pat=%25&limit=1", who: "A", hdr: []string{"Prefer", "count=exact"}, status: 206, header: map[string]string{"Content-Range": "0-0/3"}},
		{name: "setof single", method: "POST", path: r + "gadgets_named?select=id", who: "A", body: `{"pat":"gamma"}`, hdr: []string{"Accept", "application/vnd.pgrst.object+json"}, status: 200, json: `{"id":3}`},
		{name: "volatile by POST writes", method: "POST", path: r + "bump", who: "A", body: `{"n":50}`, status: 200, json: `50`},
		{name: "volatile writer by GET is 405", method: "GET", path: r + "bump?n=51", who: "A", status: 405, code: "25006"},
		{name: "single unnamed json param", method: "POST", path: r + "echo_json", who: "A", body: `{"any":["thing"]}`, status: 200, json: `{"any":["thing"]}`},
		{name: "void", method: "POST", path: r + "nothing", who: "A", body: `{}`, status: 204},
		{name: "response GUCs", method: "GET", path: r + "teapot", who: "A", status: 418, json: `"short and stout"`, header: map[string]string{"X-Brew": "tea"}},
		{name: "raise PGRST", method: "POST", path: r + "payment", who: "A", body: `{}`, status: 402, code: "PAY", header: map[string]string{"X-Why": "quota"}},
		{name: "raise P0001", method: "POST", path: r + "fail_plain", who: "A", body: `{}`, status: 400, code: "P0001", json: `{"code":"P0001","message":"I refuse","details":"nope","hint":"no"}`},
		{name: "request GUCs", method: "GET", path: r + "whoami", who: "A", hdr: []string{"X-Test", "hello"}, status: 200, json: fmt.Sprintf(`{"role":"authenticated","sub":%q,"method":"GET","path":"/rest/v1/rpc/whoami","ua":"hello"}`, e.userA)},
		{name: "anon claims", method: "GET", path: r + "whoami", who: "none", hdr: []string{"X-Test", "x"}, status: 200, has: []string{`"role": "anon"`, `"sub": null`}},
		{name: "service role key", method: "GET", path: r + "whoami", who: "service", status: 200, has: []string{`"role": "service_role"`}},
		{name: "other verb", method: "DELETE", path: r + "add_them", who: "A", status: 405, code: "PGRST101"},
		{name: "statement timeout is 500 57014", method: "GET", path: r + "slow", who: "A", status: 500, code: "57014"},
	})
}

func TestAuthScenarios(t *testing.T) {
	t.Parallel()
	e := setup(t)
	expired := e.sign(e.userA, "authenticated", -time.Hour)
	badRole := e.sign(e.userA, "postgres", time.Hour)
	noneAlg := "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJyb2xlIjoic2VydmljZV9yb2xlIn0."
	tampered := e.tokA[:len(e.tokA)-4] + "AAAA"
	l := "/rest/v1/labels?select=id&limit=1"
	e.runScenarios(t, []scenario{
		{name: "expired", method: "GET", path: l, who: expired, status: 401, code: "PGRST303", header: map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description="JWT expired"`}},
		{name: "alg none", method: "GET", path: l, who: noneAlg, status: 401, code: "PGRST301"},
		{name: "bad signature", method: "GET", path: l, who: tampered, status: 401, code: "PGRST301", has: []string{"JWT cryptographic operation failed"}},
		{name: "two parts", method: "GET", path: l, who: "abc.def", status: 401, code: "PGRST301", has: []string{"Expected 3 parts in JWT; got 2"}},
		{name: "role not allowed", method: "GET", path: l, who: badRole, status: 401, code: "PGRST303"},
		{name: "anon key as bearer", method: "GET", path: l, who: "anon", status: 401, code: "42501", header: map[string]string{"WWW-Authenticate": "Bearer"}},
		{name: "no bearer", method: "GET", path: l, who: "none", status: 401, code: "42501"},
		{name: "user", method: "GET", path: l, who: "A", status: 200},
		{name: "service", method: "GET", path: "/rest/v1/invite_codes?select=id", who: "service", status: 200},
		{name: "user cannot read invites", method: "GET", path: "/rest/v1/invite_codes?select=id", who: "A", status: 403, code: "42501"},
	})
	// The apikey alone never grants service_role: no Authorization is anon.
	req, _ := http.NewRequest("GET", l, nil)
	_ = req
	r := e.do("GET", "/rest/v1/invite_codes", "", "", "apikey", e.cfg.ServiceRoleKey)
	if r.status != 401 {
		t.Fatalf("service apikey without bearer: %d %s", r.status, r.body)
	}
}
