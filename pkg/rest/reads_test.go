package rest

import (
	"context"
	"encoding/json"
	"testing"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// The schema cache finds every place SQL can read a request setting, and
// nothing in the app's own migrations reads one, so by default the setup
// sends none of them.
func TestRequestSettingsReadFromTheCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	loadIn := func(t *testing.T, ddl string) dbpkg.Reads {
		t.Helper()
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if ddl != "" {
			if _, err := tx.Exec(ctx, ddl); err != nil {
				t.Fatalf("%s: %v", ddl, err)
			}
		}
		c, err := schema.Load(ctx, tx, []string{"public"})
		if err != nil {
			t.Fatal(err)
		}
		return c.Reads
	}
	if got := loadIn(t, ""); got != 0 {
		t.Fatalf("the app's migrations read request settings %b; docs/performance.md says none", got)
	}
	for _, c := range []struct {
		name, ddl string
		want      dbpkg.Reads
	}{
		{"plpgsql function in another schema", `CREATE SCHEMA x; CREATE FUNCTION x.f() RETURNS text LANGUAGE plpgsql AS
			$$BEGIN RETURN current_setting('request.method', true); END$$`, dbpkg.ReadsMethod},
		{"sql-standard body", `CREATE FUNCTION public.f() RETURNS text LANGUAGE sql
			BEGIN ATOMIC SELECT current_setting('request.path', true); END`, dbpkg.ReadsPath},
		{"policy expression, any case", `CREATE TABLE public.t (a int); ALTER TABLE public.t ENABLE ROW LEVEL SECURITY;
			CREATE POLICY p ON public.t USING (current_setting('Request.Headers', true) IS NOT NULL)`, dbpkg.ReadsHeaders},
		{"policy check", `CREATE TABLE public.t (a int);
			CREATE POLICY p ON public.t FOR INSERT WITH CHECK (current_setting('request.cookies', true) IS NOT NULL)`, dbpkg.ReadsCookies},
		{"view", `CREATE VIEW public.v AS SELECT current_setting('request.headers', true) AS h`, dbpkg.ReadsHeaders},
		{"column default", `CREATE TABLE public.t (a text DEFAULT current_setting('request.path', true))`, dbpkg.ReadsPath},
		{"check constraint", `CREATE TABLE public.t (a text CHECK (a <> current_setting('request.method', true)))`, dbpkg.ReadsMethod},
		{"name built at run time", `CREATE FUNCTION public.g(k text) RETURNS text LANGUAGE sql AS
			$$SELECT current_setting('request.' || k, true)$$`, dbpkg.ReadsAll},
		{"claims only", `CREATE FUNCTION public.h() RETURNS text LANGUAGE sql AS
			$$SELECT current_setting('request.jwt.claims', true)$$`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := loadIn(t, c.ddl); got != c.want {
				t.Fatalf("reads = %04b, want %04b", got, c.want)
			}
		})
	}
}

// The schema cache finds what could set a response GUC: function bodies
// (a trigger's included), a function's SET clause, a role's default
// settings; the app's own migrations set none, so its folded writes send
// no guard.
func TestResponseSettingsWrittenFromTheCatalog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	load := func(t *testing.T, ddl string) bool {
		t.Helper()
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		if ddl != "" {
			if _, err := tx.Exec(ctx, ddl); err != nil {
				t.Fatalf("%s: %v", ddl, err)
			}
		}
		c, err := schema.Load(ctx, tx, []string{"public"})
		if err != nil {
			t.Fatal(err)
		}
		return c.WritesResponse
	}
	if load(t, "") {
		t.Fatal("the app's migrations set response GUCs; docs/performance.md says none")
	}
	for _, c := range []struct {
		name, ddl string
		want      bool
	}{
		{"trigger function", `CREATE FUNCTION public.t() RETURNS trigger LANGUAGE plpgsql AS
			$$BEGIN PERFORM set_config('response.status', '202', true); RETURN NEW; END$$`, true},
		{"name built at run time, any case", `CREATE FUNCTION public.f(k text) RETURNS void LANGUAGE sql AS
			$$SELECT set_config('Response.' || k, '', true)$$`, true},
		{"function SET clause", `CREATE FUNCTION public.g() RETURNS int LANGUAGE sql SET "response.status" = '201' AS $$SELECT 1$$`, true},
		{"role default", `ALTER ROLE anon SET "response.headers" = '[]'`, true},
		{"reads a request setting only", `CREATE FUNCTION public.h() RETURNS text LANGUAGE sql AS
			$$SELECT current_setting('request.method', true)$$`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := load(t, c.ddl); got != c.want {
				t.Fatalf("writes response = %v, want %v", got, c.want)
			}
		})
	}
}

// A setting nothing read at load time is not sent; after a schema reload
// that finds a reader it is, exactly as before; and the switch sends all
// of them regardless.
func TestRequestSettingsSentWhenRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const reader = `CREATE FUNCTION public.echo_later() RETURNS json LANGUAGE sql STABLE AS $$
		  SELECT json_build_object('method', current_setting('request.method', true),
		    'path', current_setting('request.path', true),
		    'x', current_setting('request.headers', true)::json->>'x-test',
		    'cookie', current_setting('request.cookies', true)::json->>'flavour')
		$$; GRANT EXECUTE ON FUNCTION public.echo_later() TO anon`
	call := func(t *testing.T, e *env) map[string]*string {
		t.Helper()
		r := e.do("GET", "/rest/v1/rpc/echo_later", "", "", "X-Test", "yes", "Cookie", "flavour=mint")
		if r.status != 200 {
			t.Fatalf("echo_later: %d %s", r.status, r.body)
		}
		var got map[string]*string
		if err := json.Unmarshal([]byte(r.body), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	full := map[string]string{"method": "GET", "path": "/rest/v1/rpc/echo_later", "x": "yes", "cookie": "mint"}
	check := func(t *testing.T, got map[string]*string, want map[string]string) {
		t.Helper()
		for k := range full {
			w, set := want[k]
			switch {
			case set && (got[k] == nil || *got[k] != w):
				t.Errorf("%s = %v, want %q", k, got[k], w)
			case !set && got[k] != nil && *got[k] != "":
				t.Errorf("%s = %q, want it unset", k, *got[k])
			}
		}
	}
	t.Run("detected on reload", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		if _, err := e.db.Pool.Exec(ctx, reader); err != nil {
			t.Fatal(err)
		}
		if err := e.api.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		check(t, call(t, e), full)
	})
	t.Run("switch sends all", func(t *testing.T) {
		t.Parallel()
		e := setupEnv(t, map[string]string{"REST_SET_ALL_REQUEST_SETTINGS": "true"})
		if _, err := e.db.Pool.Exec(ctx, reader); err != nil {
			t.Fatal(err)
		}
		// Reload for the RPC; then pretend the catalog search missed it.
		if err := e.api.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		c := *e.api.cache.Load()
		c.Reads = 0
		e.api.cache.Store(&c)
		check(t, call(t, e), full)
	})
	t.Run("not sent when the search saw no reader", func(t *testing.T) {
		t.Parallel()
		e := setup(t)
		if _, err := e.db.Pool.Exec(ctx, reader); err != nil {
			t.Fatal(err)
		}
		if err := e.api.Reload(ctx); err != nil {
			t.Fatal(err)
		}
		c := *e.api.cache.Load()
		c.Reads = dbpkg.ReadsMethod
		e.api.cache.Store(&c)
		check(t, call(t, e), map[string]string{"method": "GET"})
	})
}
