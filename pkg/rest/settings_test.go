package rest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/token"
)

func testConfig(t *testing.T, vars map[string]string) *config.Config {
	t.Helper()
	all := map[string]string{"DATABASE_URL": "postgres://x/y", "JWT_SECRET": testSecret}
	for k, v := range vars {
		all[k] = v
	}
	c := configtest.New(t, all)
	return c
}

// TestSettingsPrecedence: the database's pgrst.* settings override the
// environment's, as PostgREST's in-database configuration overrides its
// config file and environment; settings it does not name keep theirs.
func TestSettingsPrecedence(t *testing.T) {
	env, err := envSettings(testConfig(t, map[string]string{
		"DB_SCHEMAS": "public,personal", "DB_TX_END": "commit", "DB_AGGREGATES_ENABLED": "false", "DB_MAX_ROWS": "50",
	}))
	if err != nil {
		t.Fatal(err)
	}
	s, err := env.withDB(map[string]string{
		"db_aggregates_enabled": "true", "db_tx_end": "rollback-allow-override", "db_schemas": "chat, public",
		"db_extra_search_path": "public, extensions, hidden", "jwt_role_claim_key": `."https://example.com".role`,
		"db_pre_request": "api.check_request", "openapi_mode": "ignore-privileges", "jwt_aud": "https://example.org",
		"db_anon_role": "web_anon", "db_prepared_statements": "off",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Aggregates || s.TxEnd != "rollback-allow-override" || strings.Join(s.Schemas, ",") != "chat,public" ||
		strings.Join(s.ExtraSearchPath, ",") != "public,extensions,hidden" || s.PreRequest != `"api"."check_request"` ||
		s.OpenAPIMode != "ignore-privileges" || s.JWTAud != "https://example.org" || s.AnonRole != "web_anon" || s.Prepared {
		t.Errorf("database settings not applied: %+v", s)
	}
	if s.MaxRows != 50 || s.PlanEnabled {
		t.Errorf("settings the database does not name must keep the environment's: %+v", s)
	}
	if role, ok := s.RoleClaim.lookup([]byte(`{"role":"anon","https://example.com":{"role":"authenticated"}}`)); !ok || role != "authenticated" {
		t.Errorf("role claim key: %q %v", role, ok)
	}
	if env.Aggregates || env.TxEnd != "commit" {
		t.Error("withDB must not change the environment's settings")
	}
	for k, v := range map[string]string{
		"db_tx_end": "sometimes", "db_max_rows": "many", "db_aggregates_enabled": "maybe",
		"openapi_mode": "public", "db_schemas": " , ", "db_anon_role": " ", "db_prepared_statements": "sometimes", "jwt_role_claim_key": ".roles[?(@ == \"x\")]", "db_pre_request": "a.b.c",
	} {
		if _, err := env.withDB(map[string]string{k: v}); err == nil || !strings.Contains(err.Error(), "pgrst."+k) {
			t.Errorf("%s=%q: err %v, want one naming the setting", k, v, err)
		}
	}
	if _, err := envSettings(testConfig(t, map[string]string{"REST_JWT_ROLE_CLAIM_KEY": "role"})); err == nil {
		t.Error("a role claim key without a leading . must be refused at start")
	}
}

// TestInDatabaseConfiguration reads pgrst.* settings from the catalog as
// PostgREST does: role settings for this database beat role settings for
// every database; a setting on the database alone is ignored; a reload
// with a bad value keeps the settings in force; NOTIFY pgrst, 'reload
// config' applies changes without a restart; DB_CONFIG=false ignores it
// all. Role-wide settings reach every database of the cluster, so this
// test is not parallel and resets them when done.
func TestInDatabaseConfiguration(t *testing.T) {
	e := setup(t)
	ctx := context.Background()
	var dbname string
	if err := e.db.Pool.QueryRow(ctx, "SELECT current_database()").Scan(&dbname); err != nil {
		t.Fatal(err)
	}
	inDB := "ALTER ROLE authenticator IN DATABASE " + pgx.Identifier{dbname}.Sanitize()
	exec := func(sql string) {
		t.Helper()
		if _, err := e.db.Pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	t.Cleanup(func() {
		for _, k := range dbSettingNames {
			_, _ = e.db.Pool.Exec(context.Background(), "ALTER ROLE authenticator RESET "+pgx.Identifier{k}.Sanitize())
		}
	})
	count := "/rest/v1/labels?select=count()"
	if r := e.do("GET", count, e.cfg.ServiceRoleKey, ""); r.status != 400 || !strings.Contains(r.body, "PGRST123") {
		t.Fatalf("aggregates are off by default: %d %s", r.status, r.body)
	}

	exec("ALTER ROLE authenticator SET pgrst.db_aggregates_enabled = 'false'")
	exec(inDB + " SET pgrst.db_aggregates_enabled = 'true'")
	exec("ALTER DATABASE " + pgx.Identifier{dbname}.Sanitize() + " SET pgrst.db_plan_enabled = 'true'")
	if err := e.api.ReloadConfig(ctx); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", count, e.cfg.ServiceRoleKey, ""); r.status != 200 || r.body != `[{"count":4}]` {
		t.Fatalf("the role's setting in this database wins: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/rest/v1/labels", e.cfg.ServiceRoleKey, "", "Accept", "application/vnd.pgrst.plan+json"); r.status != 415 {
		t.Fatalf("a setting on the database alone is ignored: %d %s", r.status, r.body)
	}

	exec(inDB + " SET pgrst.db_tx_end = 'sometimes'")
	if err := e.api.ReloadConfig(ctx); err == nil || !strings.Contains(err.Error(), "pgrst.db_tx_end") {
		t.Fatalf("a bad value must fail the reload, naming the setting: %v", err)
	}
	if r := e.do("GET", count, e.cfg.ServiceRoleKey, ""); r.status != 200 {
		t.Fatalf("a failed reload keeps the settings in force: %d %s", r.status, r.body)
	}
	exec(inDB + " RESET pgrst.db_tx_end")

	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go e.api.Watch(wctx)
	<-e.api.Listening()
	exec(inDB + " SET pgrst.db_max_rows = '2'")
	exec("NOTIFY pgrst, 'reload config'")
	for i := 0; e.api.settings().MaxRows != 2; i++ {
		if i == 500 {
			t.Fatal("NOTIFY pgrst, 'reload config' was not applied")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := e.do("GET", "/rest/v1/labels?select=id&order=id", e.cfg.ServiceRoleKey, ""); r.status != 200 || strings.Count(r.body, `"id"`) != 2 {
		t.Fatalf("db_max_rows caps a read: %d %s", r.status, r.body)
	}

	noDB := *e.cfg
	noDB.DBConfig = false
	off, err := New(ctx, Deps{Config: &noDB, Pool: e.api.pool, Verifier: e.api.verifier})
	if err != nil {
		t.Fatal(err)
	}
	if s := off.settings(); s.Aggregates || s.MaxRows != 0 {
		t.Fatalf("DB_CONFIG=false must ignore the database's settings: %+v", s)
	}
}

func TestJSPath(t *testing.T) {
	claims := []byte(`{"role":"anon","app":{"roles":["authenticated","x"]},"a.b":{"role":"service_role"},"n":1}`)
	for path, want := range map[string]string{
		".role": "anon", ".app.roles[0]": "authenticated", `."a.b".role`: "service_role", ".app.roles[5]": "", ".n": "", ".missing": "",
	} {
		p, err := parseJSPath(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, ok := p.lookup(claims)
		if got != want || ok != (want != "") {
			t.Errorf("%s = %q %v, want %q", path, got, ok, want)
		}
	}
	for _, bad := range []string{"", "role", ".", `."unterminated`, ".a[x]", ".a[-1]"} {
		if _, err := parseJSPath(bad); err == nil {
			t.Errorf("%q must not parse", bad)
		}
	}
}

const settingsSQL = `
CREATE SCHEMA hidden;
GRANT USAGE ON SCHEMA hidden TO anon, authenticated, service_role;
CREATE FUNCTION hidden.helper() RETURNS text LANGUAGE sql STABLE AS $$SELECT 'from hidden'$$;
CREATE FUNCTION public.uses_helper() RETURNS text LANGUAGE plpgsql STABLE AS $$BEGIN RETURN helper(); END$$;
CREATE FUNCTION public.my_role() RETURNS text LANGUAGE sql STABLE AS $$SELECT current_user::text$$;
CREATE FUNCTION public.check_request() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('request.headers', true)::json->>'x-block' = 'yes' THEN
    RAISE SQLSTATE 'PGRST' USING MESSAGE = '{"code":"BLOCKED","message":"blocked by the pre-request"}', DETAIL = '{"status":403,"headers":{}}';
  END IF;
END $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA public, hidden TO anon, authenticated, service_role;
`

// TestSettingsApplied checks the settings Labelbase gained for parity:
// db-pre-request, db-extra-search-path, openapi-mode, jwt-aud and
// jwt-role-claim-key, each against the behaviour PostgREST documents.
func TestSettingsApplied(t *testing.T) {
	t.Parallel()
	// (The harness's verifier also wants aud to include "authenticated"
	// when present; the gateway's does not check aud itself.)
	e := setupEnv(t, map[string]string{
		"DB_PRE_REQUEST": "public.check_request", "DB_EXTRA_SEARCH_PATH": "public, extensions, hidden",
		"OPENAPI_MODE": "disabled", "REST_JWT_AUD": "https://example.org", "REST_JWT_ROLE_CLAIM_KEY": ".app.role",
	}, settingsSQL)
	plain := setup(t, settingsSQL)
	now := time.Now()
	sign := func(claims jwt.MapClaims) string {
		claims["iat"], claims["exp"] = now.Unix(), now.Add(time.Hour).Unix()
		s, err := token.Sign(testSecret, claims)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name   string
		e      *env
		path   string
		bearer string
		hdr    []string
		status int
		has    string
	}{
		{"pre-request runs before the statement", e, "/rest/v1/rpc/my_role", "", []string{"X-Block", "yes"}, 403, `"code":"BLOCKED"`},
		{"pre-request lets others through", e, "/rest/v1/rpc/my_role", "", nil, 200, `"anon"`},
		{"extra search path reaches hidden", e, "/rest/v1/rpc/uses_helper", "", nil, 200, `"from hidden"`},
		{"without it hidden is not on the path", plain, "/rest/v1/rpc/uses_helper", "", nil, 404, `"code":"42883"`},
		{"openapi disabled", e, "/rest/v1/", "", nil, 404, `{"code":"PGRST126","details":null,"hint":null,"message":"Root endpoint metadata is disabled"}`},
		{"openapi follows privileges by default", plain, "/rest/v1/", "", nil, 200, `"swagger"`},
		{"aud outside jwt-aud is refused", e, "/rest/v1/rpc/my_role", sign(jwt.MapClaims{"role": "authenticated", "aud": "authenticated"}), nil, 401, `"message":"JWT not in audience"`},
		{"role from the role claim key", e, "/rest/v1/rpc/my_role", sign(jwt.MapClaims{"role": "anon", "aud": []string{"https://example.org", "authenticated"}, "app": map[string]any{"role": "authenticated"}}), nil, 200, `"authenticated"`},
		{"no role at the key is anonymous", e, "/rest/v1/rpc/my_role", sign(jwt.MapClaims{"role": "authenticated"}), nil, 200, `"anon"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.e.do("GET", c.path, c.bearer, "", c.hdr...)
			if r.status != c.status || !strings.Contains(r.body, c.has) {
				t.Fatalf("%d %s; want %d with %s", r.status, r.body, c.status, c.has)
			}
		})
	}
}

// TestExplainVerboseQueryIdentifier: with options=verbose the plan shows
// PostgreSQL's Query Identifier, as on a server computing query ids.
func TestExplainVerboseQueryIdentifier(t *testing.T) {
	t.Parallel()
	e := setupEnv(t, map[string]string{"DB_PLAN_ENABLED": "true"})
	for _, c := range []struct {
		accept string
		want   string
	}{
		{"application/vnd.pgrst.plan+text; options=verbose", "Query Identifier: "},
		{"application/vnd.pgrst.plan+json; options=verbose", `"Query Identifier": `},
	} {
		r := e.do("GET", "/rest/v1/labels?select=id", e.cfg.ServiceRoleKey, "", "Accept", c.accept)
		if r.status != 200 || !strings.Contains(r.body, c.want) {
			t.Errorf("%s: %d %s", c.accept, r.status, r.body)
		}
	}
	r := e.do("GET", "/rest/v1/labels?select=id", e.cfg.ServiceRoleKey, "", "Accept", "application/vnd.pgrst.plan+text")
	if r.status != 200 || strings.Contains(r.body, "Query Identifier") {
		t.Errorf("without verbose, no query identifier: %d %s", r.status, r.body)
	}
}

// TestEstimatedCountAboveMaxRows: Prefer: count=estimated answers the
// exact count up to db-max-rows and the planner's estimate above it, as
// PostgREST's docs describe. The table is never analysed, so the planner
// guesses from its pages and the estimate differs from the true count.
func TestEstimatedCountAboveMaxRows(t *testing.T) {
	t.Parallel()
	e := setupEnv(t, map[string]string{"DB_MAX_ROWS": "10"}, `
CREATE TABLE public.nums (n int) WITH (autovacuum_enabled = false);
INSERT INTO public.nums SELECT generate_series(1, 100);
GRANT SELECT ON public.nums TO anon;`)
	total := func(path, count string) string {
		t.Helper()
		r := e.do("GET", path, e.cfg.AnonKey, "", "Prefer", "count="+count)
		if r.status != 200 && r.status != 206 {
			t.Fatalf("%s count=%s: %d %s", path, count, r.status, r.body)
		}
		cr := r.header.Get("Content-Range")
		return cr[strings.Index(cr, "/")+1:]
	}
	planned := total("/rest/v1/nums?select=n", "planned")
	if planned == "100" {
		t.Fatalf("the planner's guess for an unanalysed table should not be exact: %s", planned)
	}
	if got := total("/rest/v1/nums?select=n", "exact"); got != "100" {
		t.Errorf("exact: %s", got)
	}
	if got := total("/rest/v1/nums?select=n", "estimated"); got != planned {
		t.Errorf("estimated above db-max-rows = %s, want the planned %s", got, planned)
	}
	if got := total("/rest/v1/nums?select=n&n=lte.5", "estimated"); got != "5" {
		t.Errorf("estimated within db-max-rows = %s, want the exact 5", got)
	}
}
