package rest

import "testing"

const openAPIPrivSQL = `
CREATE TABLE public.members_only (id int PRIMARY KEY, secret text);
CREATE TABLE public.nobody (id int PRIMARY KEY);
CREATE TABLE public.column_granted (id int PRIMARY KEY, shown text, hidden text);
REVOKE ALL ON public.members_only, public.nobody, public.column_granted FROM PUBLIC, anon, authenticated;
GRANT SELECT ON public.members_only TO authenticated;
GRANT SELECT (id, shown) ON public.column_granted TO anon;
CREATE FUNCTION public.members_fn() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION public.nobody_fn() RETURNS int LANGUAGE sql AS 'SELECT 2';
CREATE FUNCTION public.open_fn() RETURNS int LANGUAGE sql AS 'SELECT 3';
REVOKE EXECUTE ON FUNCTION public.members_fn(), public.nobody_fn() FROM PUBLIC, anon, authenticated;
GRANT EXECUTE ON FUNCTION public.members_fn() TO authenticated;
GRANT EXECUTE ON FUNCTION public.open_fn() TO anon, authenticated;
`

// TestOpenAPIPrivileges: the root lists only what the caller's role may use.
func TestOpenAPIPrivileges(t *testing.T) {
	t.Parallel()
	e := setup(t, openAPIPrivSQL)
	paths := func(who string) map[string]any {
		t.Helper()
		r := e.do("GET", "/rest/v1/", e.bearer(who), "")
		if r.status != 200 {
			t.Fatalf("%s: %d %s", who, r.status, r.body)
		}
		doc := r.json(t).(map[string]any)
		defs := doc["definitions"].(map[string]any)
		p := doc["paths"].(map[string]any)
		for k := range p {
			if len(k) > 1 && k[:5] != "/rpc/" && defs[k[1:]] == nil {
				t.Errorf("%s: path %s without definition", who, k)
			}
		}
		return p
	}
	cases := []struct {
		who       string
		want, not []string
	}{
		{"anon", []string{"/column_granted", "/rpc/open_fn", "/rpc/validate_invite_code"}, []string{"/labels", "/rpc/get_latest_releases", "/members_only", "/nobody", "/rpc/members_fn", "/rpc/nobody_fn"}},
		{"A", []string{"/labels", "/members_only", "/rpc/members_fn", "/rpc/open_fn", "/rpc/get_latest_releases"}, []string{"/nobody", "/column_granted", "/rpc/nobody_fn"}},
	}
	for _, c := range cases {
		p := paths(c.who)
		for _, k := range c.want {
			if p[k] == nil {
				t.Errorf("%s: missing %s", c.who, k)
			}
		}
		for _, k := range c.not {
			if p[k] != nil {
				t.Errorf("%s: lists %s", c.who, k)
			}
		}
	}
	// A table dropped after the cache was loaded drops out instead of failing.
	if _, err := e.db.Pool.Exec(t.Context(), "DROP TABLE public.members_only"); err != nil {
		t.Fatal(err)
	}
	if p := paths("A"); p["/members_only"] != nil {
		t.Errorf("dropped table still listed")
	}
	if r := e.do("HEAD", "/rest/v1/", "", ""); r.status != 200 {
		t.Errorf("HEAD: %d", r.status)
	}
}
