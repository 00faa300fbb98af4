package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/requestid"
)

// TestOperatorEndpoints checks what an operator scrapes and probes: the
// metric families after some traffic, on the admin handler and never on
// the public one; the profiler only when switched on; liveness that
// ignores the database and readiness that does not; and the request id on
// a log line written while serving a request.
func TestOperatorEndpoints(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	pgtest.CreateUser(t, db.Pool, "ops@example.test", "correct horse battery")
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE public.ops_notes (id int PRIMARY KEY); GRANT SELECT ON public.ops_notes TO anon`); err != nil {
		t.Fatal(err)
	}
	logs := &logtest.Buffer{}
	log := slog.New(requestid.NewHandler(slog.NewJSONHandler(logs, nil)))
	g := startGateway(t, db.URL, map[string]string{"ADMIN_LISTEN_ADDR": "127.0.0.1:0", "ADMIN_PPROF": "true"}, false, log)
	admin := httptest.NewServer(g.app.AdminHandler())
	t.Cleanup(admin.Close)

	// Traffic.
	if status, body := g.call(t, "GET", "/rest/v1/ops_notes?select=id&limit=1", ""); status != 200 {
		t.Fatalf("list labels: %d %s", status, body)
	}
	if status, _ := g.call(t, "GET", "/rest/v1/no_such_table", ""); status != 404 {
		t.Fatalf("unknown table: %d", status)
	}
	if status, _ := g.grant(t, "password", jsonBody(map[string]string{"email": "ops@example.test", "password": "wrong"})); status != 400 {
		t.Fatalf("wrong password: %d", status)
	}
	if status, _ := g.grant(t, "password", jsonBody(map[string]string{"email": "ops@example.test", "password": "correct horse battery"})); status != 200 {
		t.Fatalf("sign-in: %d", status)
	}

	metrics := get(t, admin.URL+"/metrics", 200)
	for _, want := range []string{
		// Route templates, never raw paths: the unknown table counts under its route.
		`labelbase_http_requests_total{method="GET",route="/rest/v1/:table",status="200"} 1`,
		`labelbase_http_requests_total{method="GET",route="/rest/v1/:table",status="404"} 1`,
		`labelbase_http_requests_total{method="POST",route="/auth/v1/token",status="400"} 1`,
		`labelbase_http_request_duration_seconds_bucket{method="GET",route="/rest/v1/:table",le="0.005"}`,
		`labelbase_auth_events_total{grant="password",outcome="failed"} 1`,
		`labelbase_auth_events_total{grant="password",outcome="ok"} 1`,
		`labelbase_db_pool_connections{pool="rest",state="idle"}`,
		`labelbase_db_pool_connections{pool="owner",state="acquired"}`,
		`labelbase_db_pool_max_connections{pool="rest"} 4`,
		`labelbase_db_pool_acquires_total{pool="rest"}`,
		`labelbase_schema_cache_reloads_total{result="ok"}`,
		`labelbase_schema_cache_last_reload_seconds`,
		`labelbase_build_info{goversion="go`,
		`go_goroutines`,
		`process_resident_memory_bytes`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, "no_such_table") {
		t.Error("/metrics carries a raw path")
	}
	if body := get(t, admin.URL+"/debug/pprof/", 200); !strings.Contains(body, "goroutine") {
		t.Errorf("pprof index: %.200s", body)
	}
	noProfiler := httptest.NewServer(g.app.Metrics.Handler(false))
	t.Cleanup(noProfiler.Close)
	get(t, noProfiler.URL+"/debug/pprof/", 404)

	// The public port serves neither (whatever the web app's fallback
	// answers, it is not these).
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		res, err := http.Get(g.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if bytes.Contains(body, []byte("labelbase_build_info")) || bytes.Contains(body, []byte("goroutine?debug")) {
			t.Errorf("public %s exposes the admin handler", path)
		}
	}

	// Probes: with the database refusing connections, the gateway is alive
	// but not ready.
	for _, path := range []string{"/livez", "/readyz", "/health"} {
		get(t, g.srv.URL+path, 200)
	}
	// From another database: a database cannot refuse connections to
	// itself.
	server, err := pgx.Connect(ctx, pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(ctx) })
	if _, err := server.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %q ALLOW_CONNECTIONS false`, db.Name)); err != nil {
		t.Fatal(err)
	}
	if _, err := server.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, db.Name); err != nil {
		t.Fatal(err)
	}
	unblocked := false
	unblock := func() {
		if unblocked {
			return
		}
		unblocked = true
		if _, err := server.Exec(ctx, fmt.Sprintf(`ALTER DATABASE %q ALLOW_CONNECTIONS true`, db.Name)); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(unblock)
	get(t, g.srv.URL+"/livez", 200)
	res, err := http.Get(g.srv.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 503 {
		t.Fatalf("/readyz with the database refusing connections: %d, want 503", res.StatusCode)
	}
	id := res.Header.Get("X-Request-Id")
	if !logged(logs, "not ready", id) {
		t.Errorf("no 'not ready' log line carries the request id %q:\n%s", id, logs.String())
	}
	unblock()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := http.Get(g.srv.URL + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz stays %d after the database is back", res.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// get fetches url, requires status and returns the body.
func get(t *testing.T, url string, status int) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d: %.300s", url, res.StatusCode, status, body)
	}
	return string(body)
}

// logged reports whether a JSON log line has msg and request_id id.
func logged(logs *logtest.Buffer, msg, id string) bool {
	dec := json.NewDecoder(strings.NewReader(logs.String()))
	for dec.More() {
		var line map[string]any
		if dec.Decode(&line) != nil {
			return false
		}
		if line["msg"] == msg && id != "" && line["request_id"] == id {
			return true
		}
	}
	return false
}
