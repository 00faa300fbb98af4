package rest

// Scenarios of writes, function calls and authentication, on the
// fixture of scenario_test.go.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

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
		{name: "escaped and repeated names", method: "POST", path: r + "add_them", who: "A", body: `{"\u0061":1, "b":{"x":"}"}, "b":2}`, status: 200, json: `3`},
		{name: "nested values are not names", method: "POST", path: r + "add_them", who: "A", body: `{"a":1,"b":2,"x":{"c":3}}`, status: 404, code: "PGRST202", has: []string{"add_them(a, b, x)"}},
		{name: "invalid json call", method: "POST", path: r + "add_them", who: "A", body: `{"a":1,}`, status: 400, code: "PGRST102"},
		{name: "truncated json call", method: "POST", path: r + "add_them", who: "A", body: `{"a":1`, status: 400, code: "PGRST102"},
		{name: "form-encoded call", method: "POST", path: r + "add_them", who: "A", body: "a=1&b=2", hdr: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 200, json: `3`},
		{name: "call in an unknown media type", method: "POST", path: r + "add_them", who: "A", body: "<a>1</a>", hdr: []string{"Content-Type", "application/xml"}, status: 415, code: "PGRST107"},
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
		{name: "alg none", method: "GET", path: l, who: noneAlg, status: 401, code: "PGRST301", has: []string{"Wrong or unsupported encoding algorithm", `JWT algorithm \"none\" is not allowed`}},
		{name: "header not JSON", method: "GET", path: l, who: "bm90IGpzb24." + strings.SplitN(e.tokA, ".", 2)[1], status: 401, code: "PGRST301", has: []string{"JWT couldn't be decoded"}},
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
