package rest

import (
	"encoding/json"
	"strings"
	"testing"
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
