package rest

import (
	"encoding/json"
	"testing"
)

// TestExplainSettingsSearchPath: EXPLAIN's Settings shows the search_path
// PostgREST sets, the request's schema and then the extra search path,
// each quoted and none dropped (PlanSpec "outputs the search path when
// using the settings option"; PostgREST's setPgLocals).
func TestExplainSettingsSearchPath(t *testing.T) {
	t.Parallel()
	const other = `CREATE SCHEMA "other side"; CREATE TABLE "other side".things (id int);
		GRANT USAGE ON SCHEMA "other side" TO service_role; GRANT SELECT ON "other side".things TO service_role;`
	settings := func(e *env, path string, hdr ...string) string {
		t.Helper()
		hdr = append(hdr, "Accept", "application/vnd.pgrst.plan+json; options=settings")
		r := e.do("GET", path, e.cfg.ServiceRoleKey, "", hdr...)
		var plans []struct {
			Settings map[string]string `json:"Settings"`
		}
		if r.status != 200 || json.Unmarshal([]byte(r.body), &plans) != nil || len(plans) != 1 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		return plans[0].Settings["search_path"]
	}
	e := setupEnv(t, map[string]string{"DB_PLAN_ENABLED": "true", "DB_SCHEMAS": "public,other side"}, other)
	if got, want := settings(e, "/rest/v1/labels?select=id"), `"public", "public", "extensions"`; got != want {
		t.Errorf("public: search_path %s, want %s", got, want)
	}
	if got, want := settings(e, "/rest/v1/things", "Accept-Profile", "other side"), `"other side", "public", "extensions"`; got != want {
		t.Errorf("second schema: search_path %s, want %s", got, want)
	}
	e2 := setupEnv(t, map[string]string{"DB_PLAN_ENABLED": "true", "DB_EXTRA_SEARCH_PATH": "extensions"})
	if got, want := settings(e2, "/rest/v1/labels?select=id"), `"public", "extensions"`; got != want {
		t.Errorf("extra extensions: search_path %s, want %s", got, want)
	}
}
