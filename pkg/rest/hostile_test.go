package rest

import (
	"math/rand"
	"net/url"
	"strings"
	"testing"
)

// TestHostileInputNever500: odd query strings and bodies, executed against
// PostgreSQL, always answer a client error in PostgREST's shape (or
// succeed), never a 500.
func TestHostileInputNever500(t *testing.T) {
	t.Parallel()
	e := setup(t, grammarSQL)
	queries := []string{
		"select=id::nonexistent_type", "select=id::select", "id=eq.%00", "name=eq.%ff%fe", "data->>%27;drop=eq.1",
		"select=data->%27x%27", "span=ov.notarange", "tags=cs.notanarray", "doc=fts(nosuchconfig).x", "doc=wfts.(((",
		"name=match.(", "name=imatch.[", "id=in.(1,a)", "id=eq(any).{1,a}", "order=data->>x.desc.nullsfirst",
		"select=*,people!nosuchfk(*)", "select=*,owner:people!owner_id(*,gadgets!owner_id(*))", "limit=99999999999999999999",
		"offset=-1", "select=\"id", "select=id,\"\"", "or=()", "or=(id.eq.1,)", "and=(or(and(or(id.eq.1))))",
		"select=" + strings.Repeat("a(", 40), "or=" + strings.Repeat("(or", 40), "id=eq." + strings.Repeat("9", 400),
		"price=gt.1e999999", "span=adj.[1,", "id=isdistinct.x", "name=like(all).{", "tags=ov.(a,\"b", "select=...people(*)",
		"select=id,...people!owner_id(gadgets!owner_id(id))", "people.name=eq.x&select=id", "order=people(name)", "columns=\"",
		// Nested braces: PostgreSQL refuses more than six array dimensions
		// (54000), a limit the request's own value hit.
		"name=ilike(all).{{{{{{{{{a}}}}}}}}}", "tags=cs.{{{{{{{{{a}}}}}}}}}",
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"(", ")", ",", ".", "\"", "!", ":", "::", "->", "->>", "*", "{", "}", "eq", "in", "not", "or", "and", "id", "name", "tags", "people", "select=", "order=", "&", "=", "%", "\\"}
	for i := 0; i < 300; i++ {
		var sb strings.Builder
		for j := rng.Intn(12); j >= 0; j-- {
			sb.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		queries = append(queries, sb.String())
	}
	check := func(method, path, body string, hdr ...string) {
		t.Helper()
		r := e.do(method, path, e.tokA, body, hdr...)
		if r.status >= 500 {
			t.Fatalf("%s %s %q -> %d %s", method, path, body, r.status, r.body)
		}
		if r.status >= 400 && !strings.Contains(r.body, `"code"`) {
			t.Fatalf("%s %s -> %d without an error body: %s", method, path, r.status, r.body)
		}
	}
	for _, q := range queries {
		raw := (&url.URL{RawQuery: q}).String()
		if strings.ContainsAny(q, " #") {
			raw = "?" + url.PathEscape(q)
		}
		check("GET", "/rest/v1/gadgets"+raw, "")
		check("GET", "/rest/v1/rpc/gadgets_named"+raw+"&pat=x", "")
		check("DELETE", "/rest/v1/gadgets"+raw+"&id=eq.-1", "")
	}
	for _, b := range []string{`[1,2]`, `"s"`, `null`, `{"id":{"x":1},"name":"n"}`, `[{}]`, `{}`, `[]`, `{"id":1e400,"name":"x"}`,
		`{"tags":"notarray","id":90,"name":"x"}`, `{"span":"[2,1)","id":91,"name":"x"}`, `{"id":92,"name":"\u0000"}`, `[{"id":93,"name":"a"},{"id":"x","name":"b"}]`} {
		check("POST", "/rest/v1/gadgets", b)
		check("PATCH", "/rest/v1/gadgets?id=eq.1", b)
		check("POST", "/rest/v1/rpc/add_them", b)
		check("POST", "/rest/v1/gadgets?columns=id,name&on_conflict=id", b, "Prefer", "resolution=merge-duplicates,missing=default")
	}
}
