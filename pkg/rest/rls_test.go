package rest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
)

// TestRLSThroughTheAPI: user B can neither read nor change user A's
// follows, listens or submissions by any route; anon reads nothing
// private; service_role sees everything.
func TestRLSThroughTheAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	a, b := e.userA, e.userB
	l1, l2, r1 := e.labels[0], e.labels[1], e.rels[0]
	ufl, ulr := "/rest/v1/user_follow_labels", "/rest/v1/user_listened_releases"
	e.runScenarios(t, []scenario{
		{name: "A follows", method: "POST", path: ufl, who: "A", body: fmt.Sprintf(`{"user_id":%q,"label_id":%d}`, a, l1), status: 201},
		{name: "A listens (upsert)", method: "POST", path: ulr + "?on_conflict=user_id,release_id", who: "A", body: fmt.Sprintf(`{"user_id":%q,"release_id":%d}`, a, r1), hdr: []string{"Prefer", "resolution=merge-duplicates"}, status: 201},
		{name: "A listens again (upsert is idempotent: 200, nothing inserted)", method: "POST", path: ulr + "?on_conflict=user_id,release_id", who: "A", body: fmt.Sprintf(`{"user_id":%q,"release_id":%d}`, a, r1), hdr: []string{"Prefer", "resolution=merge-duplicates"}, status: 200},
		{name: "A submits", method: "POST", path: "/rest/v1/labels_to_add?columns=%22label_url%22,%22is_processed%22,%22is_valid%22,%22user_id%22&select=id", who: "A", body: fmt.Sprintf(`[{"label_url":"https://x.bandcamp.com/","is_processed":false,"is_valid":false,"user_id":%q}]`, a), hdr: []string{"Prefer", "return=representation"}, status: 201, has: []string{`"id"`}},
		{name: "A reads own follows", method: "GET", path: ufl + "?select=label_id&user_id=eq." + a, who: "A", status: 200, json: fmt.Sprintf(`[{"label_id":%d}]`, l1)},
		{name: "B reads no follows of A", method: "GET", path: ufl + "?select=label_id&user_id=eq." + a, who: "B", status: 200, json: `[]`},
		{name: "B reads no listens of A", method: "GET", path: ulr + "?select=release_id", who: "B", status: 200, json: `[]`},
		{name: "B cannot see submitters", method: "GET", path: "/rest/v1/labels_to_add?select=user_id", who: "B", status: 403, code: "42501"},
		{name: "B deletes nothing of A", method: "DELETE", path: ufl + "?user_id=eq." + a, who: "B", hdr: []string{"Prefer", "count=exact"}, status: 204, header: map[string]string{"Content-Range": "*/0"}},
		{name: "B updates nothing of A", method: "PATCH", path: ulr + "?user_id=eq." + a, who: "B", body: fmt.Sprintf(`{"user_id":%q}`, b), hdr: []string{"Prefer", "return=representation"}, status: 200, json: `[]`},
		{name: "B cannot follow as A", method: "POST", path: ufl, who: "B", body: fmt.Sprintf(`{"user_id":%q,"label_id":%d}`, a, l2), status: 403, code: "42501"},
		{name: "B cannot upsert A's listen", method: "POST", path: ulr + "?on_conflict=user_id,release_id", who: "B", body: fmt.Sprintf(`{"user_id":%q,"release_id":%d}`, a, r1), hdr: []string{"Prefer", "resolution=merge-duplicates"}, status: 403, code: "42501"},
		{name: "B cannot submit as A", method: "POST", path: "/rest/v1/labels_to_add", who: "B", body: fmt.Sprintf(`{"label_url":"https://y.bandcamp.com/","user_id":%q}`, a), status: 403, code: "42501"},
		{name: "B cannot call procedures for A", method: "POST", path: "/rest/v1/rpc/get_followed_labels", who: "B", body: fmt.Sprintf(`{"user_id_param":%q,"page_number":1,"items_per_page":20}`, a), status: 403, code: "42501"},
		{name: "B cannot count for A by GET", method: "GET", path: "/rest/v1/rpc/count_followed_labels?user_id_param=" + a, who: "B", status: 403, code: "42501"},
		{name: "B cannot read A's collection", method: "POST", path: "/rest/v1/rpc/get_all_filtered_labels_by_listen_status", who: "B", body: fmt.Sprintf(`{"user_id_param":%q,"filter_type":"all"}`, a), status: 403, code: "42501"},
		{name: "anon reads no follows", method: "GET", path: ufl, who: "none", status: 401, code: "42501"},
		{name: "anon reads no listens", method: "GET", path: ulr, who: "anon", status: 401, code: "42501"},
		{name: "anon reads no queue", method: "GET", path: "/rest/v1/labels_to_add", who: "anon", status: 401, code: "42501"},
		{name: "anon reads no invites", method: "GET", path: "/rest/v1/invite_codes", who: "anon", status: 401, code: "42501"},
		{name: "anon cannot follow", method: "POST", path: ufl, who: "anon", body: fmt.Sprintf(`{"user_id":%q,"label_id":%d}`, a, l2), status: 401, code: "42501"},
		{name: "anon calls no member procedure", method: "POST", path: "/rest/v1/rpc/count_followed_labels", who: "anon", body: fmt.Sprintf(`{"user_id_param":%q}`, a), status: 401, code: "42501"},
		{name: "anon may validate invites", method: "POST", path: "/rest/v1/rpc/validate_invite_code", who: "anon", body: `{"code_param":"nope"}`, status: 200, json: `{"valid":false}`},
		{name: "service sees A's follows", method: "GET", path: ufl + "?select=label_id&user_id=eq." + a, who: "service", status: 200, json: fmt.Sprintf(`[{"label_id":%d}]`, l1)},
		{name: "A still has the listen", method: "GET", path: ulr + "?select=release_id,user_id", who: "A", status: 200, json: fmt.Sprintf(`[{"release_id":%d,"user_id":%q}]`, r1, a)},
		{name: "A unfollows", method: "DELETE", path: ufl + "?user_id=eq." + a + "&label_id=eq." + fmt.Sprint(l1), who: "A", status: 204},
		{name: "A counts zero follows", method: "POST", path: "/rest/v1/rpc/count_followed_labels", who: "A", body: fmt.Sprintf(`{"user_id_param":%q}`, a), status: 200, json: `0`},
	})
}

// TestFailsClosedWithoutRoleSwitch proves a bug that skipped the role
// switch would expose nothing: the REST pool's login is authenticator,
// which holds no privileges.
func TestFailsClosedWithoutRoleSwitch(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	pools, err := dbpkg.Open(ctx, e.db.URL, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	for _, table := range []string{"labels", "releases", "user_follow_labels", "user_listened_releases", "labels_to_add", "invite_codes"} {
		var n int
		err := pools.REST.QueryRow(ctx, "SELECT count(*) FROM public."+table).Scan(&n)
		if err == nil || !strings.Contains(err.Error(), "42501") {
			t.Fatalf("authenticator read %s without a role switch: n=%d err=%v", table, n, err)
		}
	}
	e.api.skipRoleSwitch = true
	defer func() { e.api.skipRoleSwitch = false }()
	for _, who := range []string{"A", "service"} {
		r := e.do("GET", "/rest/v1/labels?select=id", e.bearer(who), "")
		if r.status != 403 || !strings.Contains(r.body, `"42501"`) {
			t.Fatalf("%s with the switch skipped: %d %s", who, r.status, r.body)
		}
	}
}

// TestSchemaReload: a table created after start is found after NOTIFY
// pgrst 'reload schema', without restarting, and Reload works directly.
func TestSchemaReload(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { e.api.Watch(ctx); close(done) }()
	if r := e.do("GET", "/rest/v1/fresh", e.tokA, ""); r.status != 404 {
		t.Fatalf("before: %d", r.status)
	}
	select {
	case <-e.api.Listening():
	case <-time.After(10 * time.Second):
		t.Fatal("the schema listener never subscribed")
	}
	if _, err := e.db.Pool.Exec(ctx, `CREATE TABLE public.fresh (id int); GRANT SELECT ON public.fresh TO authenticated;
		INSERT INTO public.fresh VALUES (7); NOTIFY pgrst, 'reload schema'`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := e.do("GET", "/rest/v1/fresh", e.tokA, "")
		if r.status == 200 && strings.Contains(r.body, `"id":7`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("table not visible after NOTIFY: %d %s", r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := e.db.Pool.Exec(ctx, `CREATE TABLE public.fresher (id int)`); err != nil {
		t.Fatal(err)
	}
	if err := e.api.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if e.api.cache.Load().Table("public", "fresher") == nil {
		t.Fatal("Reload did not pick up the new table")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return after its context ended")
	}
}

// TestOpenAPI: the root describes tables and functions in Swagger 2.0
// (TestOpenAPIPrivileges covers what each role sees).
func TestOpenAPI(t *testing.T) {
	t.Parallel()
	e := setup(t)
	// As an authenticated user: the app's tables are not granted to anon.
	r := e.do("GET", "/rest/v1/", e.tokA, "")
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	doc := r.json(t).(map[string]any)
	if doc["swagger"] != "2.0" {
		t.Fatalf("swagger = %v", doc["swagger"])
	}
	paths := doc["paths"].(map[string]any)
	for _, p := range []string{"/labels", "/user_follow_labels", "/rpc/get_latest_releases", "/rpc/validate_invite_code"} {
		if paths[p] == nil {
			t.Errorf("missing path %s", p)
		}
	}
	defs := doc["definitions"].(map[string]any)
	labels := defs["labels"].(map[string]any)["properties"].(map[string]any)
	if labels["tags"].(map[string]any)["type"] != "array" {
		t.Errorf("labels.tags: %v", labels["tags"])
	}
}
