package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config/configtest"
	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

// onePoolAPI is a second gateway on e's database whose REST pool has one
// connection, so a test can look at the very connection requests ran on.
func onePoolAPI(t *testing.T, e *env, settings map[string]string) (*env, *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	vals := map[string]string{"DATABASE_URL": e.db.URL, "JWT_SECRET": testSecret}
	for k, v := range settings {
		vals[k] = v
	}
	cfg := configtest.New(t, vals)
	pools, err := dbpkg.Open(ctx, e.db.URL, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)
	api, err := New(ctx, Deps{Config: cfg, Pool: pools.REST, Verifier: token.NewVerifier(testSecret, "authenticated", nil), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e2 := *e
	e2.cfg, e2.api = cfg, api
	e2.h = server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), Ready: api.Ready, REST: api.Register})
	return &e2, pools.REST
}

// preparedCount counts the gateway's statements on the pool's connection
// (pgx prepares its own, e.g. the schema cache's queries, under other names).
func preparedCount(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'lb%'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Identical requests reuse the statements prepared by the first one; a
// different request shape prepares one more; with prepared statements off
// nothing is prepared and answers are the same.
func TestPreparedStatementsReused(t *testing.T) {
	t.Parallel()
	base := setup(t)
	for _, prepared := range []bool{true, false} {
		t.Run(fmt.Sprint("prepared=", prepared), func(t *testing.T) {
			e, pool := onePoolAPI(t, base, map[string]string{"DB_PREPARED_STATEMENTS": fmt.Sprint(prepared)})
			path := "/rest/v1/labels?select=label_name&id=eq." + fmt.Sprint(e.labels[0])
			for i := 0; i < 3; i++ {
				r := e.do("GET", path, e.tokA, "")
				if r.status != 200 || r.body != `[{"label_name":"Alpha Records"}]` {
					t.Fatalf("request %d: %d %s", i, r.status, r.body)
				}
			}
			want := map[bool]int{true: 2, false: 0}[prepared] // setup + the read
			if n := preparedCount(t, pool); n != want {
				t.Fatalf("after three identical reads: %d prepared statements, want %d", n, want)
			}
			// Other values, same shape: no new statement.
			if r := e.do("GET", "/rest/v1/labels?select=label_name&id=eq."+fmt.Sprint(e.labels[1]), e.tokA, ""); r.status != 200 || !strings.Contains(r.body, "Beta") {
				t.Fatalf("second label: %d %s", r.status, r.body)
			}
			if r := e.do("GET", "/rest/v1/labels?select=id&label_name=eq.delta", e.tokA, ""); r.status != 200 {
				t.Fatalf("other shape: %d %s", r.status, r.body)
			}
			want = map[bool]int{true: 3, false: 0}[prepared]
			if n := preparedCount(t, pool); n != want {
				t.Fatalf("after a second shape: %d prepared statements, want %d", n, want)
			}
		})
	}
}

// A cached `SELECT t.*` must survive ALTER TABLE, before the schema reload
// reaches the gateway and after it. (Every main statement returns five
// text columns, so PostgreSQL replans a changed table on its own instead of
// raising "cached plan must not change result type"; the reload still
// deallocates every statement, and a statement the server lost is
// prepared again.)
func TestPreparedStatementsSurviveAlterTable(t *testing.T) {
	t.Parallel()
	e, pool := onePoolAPI(t, setup(t, `CREATE TABLE public.notes (id int PRIMARY KEY, body text);
		GRANT SELECT ON public.notes TO anon; INSERT INTO public.notes VALUES (1, 'hello')`), nil)
	ctx := context.Background()
	get := func() map[string]any {
		t.Helper()
		r := e.do("GET", "/rest/v1/notes?select=*&id=eq.1", "", "")
		if r.status != 200 {
			t.Fatalf("GET notes: %d %s", r.status, r.body)
		}
		var rows []map[string]any
		if err := json.Unmarshal([]byte(r.body), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("GET notes: %s (%v)", r.body, err)
		}
		return rows[0]
	}
	if row := get(); row["body"] != "hello" || len(row) != 2 {
		t.Fatalf("before ALTER: %v", row)
	}
	if _, err := e.db.Pool.Exec(ctx, `ALTER TABLE public.notes ADD COLUMN mood text DEFAULT 'calm'`); err != nil {
		t.Fatal(err)
	}
	// No reload yet: the prepared statement's row type is stale.
	if row := get(); row["mood"] != "calm" || len(row) != 3 {
		t.Fatalf("after ALTER, before reload: %v", row)
	}
	if _, err := e.db.Pool.Exec(ctx, `ALTER TABLE public.notes DROP COLUMN body`); err != nil {
		t.Fatal(err)
	}
	if err := e.api.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if row := get(); row["mood"] != "calm" || len(row) != 2 {
		t.Fatalf("after DROP and reload: %v", row)
	}
	// The reload dropped the old statements rather than piling them up.
	if n := preparedCount(t, pool); n != 2 {
		t.Fatalf("after a reload: %d prepared statements, want 2", n)
	}
	// The server forgets them behind the gateway's back (as after a pooler
	// moved the session): the request is run again on fresh statements.
	if _, err := pool.Exec(ctx, "DEALLOCATE ALL"); err != nil {
		t.Fatal(err)
	}
	if row := get(); row["mood"] != "calm" {
		t.Fatalf("after DEALLOCATE ALL: %v", row)
	}
}

// A read runs without BEGIN in the pipeline's implicit transaction: the
// settings the setup makes must reach the main statement, and the
// transaction must still be read-only.
func TestReadsRunReadOnlyWithTheRequestSettings(t *testing.T) {
	t.Parallel()
	e := setup(t, `CREATE TABLE public.hits (n int);
		GRANT SELECT, INSERT ON public.hits TO anon;
		CREATE FUNCTION public.echo_request() RETURNS json LANGUAGE sql STABLE AS $$
		  SELECT json_build_object('method', current_setting('request.method', true),
		    'path', current_setting('request.path', true),
		    'x', current_setting('request.headers', true)::json->>'x-test',
		    'cookie', current_setting('request.cookies', true)::json->>'flavour',
		    'role', current_user, 'ro', current_setting('transaction_read_only'))
		$$;
		CREATE FUNCTION public.count_hit() RETURNS int LANGUAGE sql VOLATILE AS $$
		  INSERT INTO public.hits VALUES (1) RETURNING n
		$$;
		GRANT EXECUTE ON FUNCTION public.echo_request(), public.count_hit() TO anon`)
	r := e.do("GET", "/rest/v1/rpc/echo_request", "", "", "X-Test", `quote " and \ slash`, "Cookie", "flavour=mint; other=1")
	if r.status != 200 {
		t.Fatalf("echo_request: %d %s", r.status, r.body)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(r.body), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"method": "GET", "path": "/rest/v1/rpc/echo_request", "x": `quote " and \ slash`,
		"cookie": "mint", "role": "anon", "ro": "on"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	// A writing function over GET is refused by the read-only transaction.
	if r := e.do("GET", "/rest/v1/rpc/count_hit", "", ""); r.status != http.StatusMethodNotAllowed || !strings.Contains(r.body, "25006") {
		t.Fatalf("writing function over GET: %d %s", r.status, r.body)
	}
	// Over POST it writes and commits.
	if r := e.do("POST", "/rest/v1/rpc/count_hit", "", "{}"); r.status != 200 || r.body != "1" {
		t.Fatalf("writing function over POST: %d %s", r.status, r.body)
	}
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM public.hits").Scan(&n); err != nil || n != 1 {
		t.Fatalf("hits after one POST: %d, %v", n, err)
	}
}

func TestRequestHeadersJSON(t *testing.T) {
	h := http.Header{}
	h.Set("X-Quote", `a "b" \c`)
	h.Add("X-Multi", "one")
	h.Add("X-Multi", "two")
	h.Set("X-Control", "tab\there\x01")
	h["X-Bad-Utf8"] = []string{"caf\xe9"}
	var got map[string]string
	if err := json.Unmarshal(requestHeaders(h), &got); err != nil {
		t.Fatalf("request.headers is not JSON: %v: %s", err, requestHeaders(h))
	}
	want := map[string]string{"x-quote": `a "b" \c`, "x-multi": "one, two", "x-control": "tab\there\x01", "x-bad-utf8": "caf\uFFFD"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if string(requestHeaders(http.Header{})) != "{}" {
		t.Errorf("no headers: %s", requestHeaders(http.Header{}))
	}
}

func TestRequestCookiesJSON(t *testing.T) {
	r, _ := http.NewRequest("GET", "/", nil)
	if string(requestCookies(r)) != "{}" {
		t.Fatalf("no cookies: %s", requestCookies(r))
	}
	r.Header.Set("Cookie", `a=1; b="two"; a=3`)
	var got map[string]string
	if err := json.Unmarshal(requestCookies(r), &got); err != nil {
		t.Fatal(err)
	}
	if got["a"] != "3" || got["b"] != "two" || len(got) != 2 {
		t.Fatalf("cookies: %v", got)
	}
}

// Plans are off unless DB_PLAN_ENABLED: a plan request is refused (415,
// as PostgREST) and runs nothing.
func TestPlansOffByDefault(t *testing.T) {
	t.Parallel()
	e := setup(t)
	r := e.do("DELETE", "/rest/v1/labels?id=eq."+fmt.Sprint(e.labels[0]), e.bearer("service"), "", "Accept", "application/vnd.pgrst.plan+json")
	if r.status != http.StatusUnsupportedMediaType || !strings.Contains(r.body, "PGRST107") {
		t.Fatalf("plan while disabled: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/rest/v1/labels?select=id&id=eq."+fmt.Sprint(e.labels[0]), e.tokA, ""); r.status != 200 || r.body == "[]" {
		t.Fatalf("the label must still exist: %d %s", r.status, r.body)
	}
}

// The guard after a folded write is sent only when the schema cache found
// something that could set a response GUC. The cache is told the search
// found nothing although an AFTER trigger sets a header: the insert then
// commits in one round trip and no guard refuses it (nothing is learnt as
// a GUC writer). With REST_SET_ALL_REQUEST_SETTINGS the guard is sent
// whatever the cache says: it refuses the folded attempt, the statement is
// remembered as a GUC writer, and the row is still written exactly once.
func TestFoldedWriteGuardFollowsTheCatalog(t *testing.T) {
	t.Parallel()
	const lateSQL = `CREATE TABLE public.late (id int PRIMARY KEY);
		CREATE FUNCTION public.late_response() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM set_config('response.headers', '[{"X-Late":"yes"}]', true); RETURN NULL; END $$;
		CREATE TRIGGER late AFTER INSERT ON public.late FOR EACH ROW EXECUTE FUNCTION public.late_response();
		GRANT SELECT, INSERT ON public.late TO anon`
	missed := func(t *testing.T, e *env) {
		t.Helper()
		if !e.api.cache.Load().WritesResponse {
			t.Fatal("the schema cache missed late_response's set_config('response.headers', …)")
		}
		c := *e.api.cache.Load()
		c.WritesResponse = false
		e.api.cache.Store(&c)
	}
	t.Run("left out when nothing could set one", func(t *testing.T) {
		t.Parallel()
		e := setup(t, lateSQL)
		missed(t, e)
		if r := e.do("POST", "/rest/v1/late", "", `{"id":1}`); r.status != 201 {
			t.Fatalf("unguarded insert: %d %s", r.status, r.body)
		}
		if len(e.api.gucWriters.m) != 0 {
			t.Fatal("a guard refused the insert although the cache said nothing sets response GUCs")
		}
		rows(t, e, "late", 1)
	})
	t.Run("sent with the switch", func(t *testing.T) {
		t.Parallel()
		e := setupEnv(t, map[string]string{"REST_SET_ALL_REQUEST_SETTINGS": "true"}, lateSQL)
		missed(t, e)
		if r := e.do("POST", "/rest/v1/late", "", `{"id":1}`); r.status != 201 {
			t.Fatalf("guarded insert: %d %s", r.status, r.body)
		}
		if len(e.api.gucWriters.m) != 1 {
			t.Fatalf("GUC writers remembered: %d, want 1 (the guard refused the folded attempt)", len(e.api.gucWriters.m))
		}
		rows(t, e, "late", 1)
	})
}

// rows fails unless table holds n rows.
func rows(t *testing.T, e *env, table string, n int) {
	t.Helper()
	var got int
	if err := e.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM public."+table).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Fatalf("%s holds %d rows, want %d", table, got, n)
	}
}

// foldedSQL: plain tables, one whose trigger sets response headers (or
// malformed ones for note 'bad'), and a deferred foreign key.
const foldedSQL = `CREATE TABLE public.plain (id int PRIMARY KEY, note text);
		CREATE TABLE public.tagged (id int PRIMARY KEY, note text);
		CREATE FUNCTION public.tag_response() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
		  IF NEW.note = 'bad' THEN
		    PERFORM set_config('response.headers', '{"not":"an array"}', true);
		  ELSE
		    PERFORM set_config('response.headers', '[{"X-Tagged":"' || NEW.id || '"}]', true);
		  END IF;
		  RETURN NEW;
		END $$;
		CREATE TRIGGER tag BEFORE INSERT ON public.tagged FOR EACH ROW EXECUTE FUNCTION public.tag_response();
		CREATE TABLE public.parent (id int PRIMARY KEY);
		CREATE TABLE public.child (id int PRIMARY KEY,
		  parent_id int REFERENCES public.parent DEFERRABLE INITIALLY DEFERRED);
		GRANT SELECT, INSERT ON public.plain, public.tagged, public.child TO anon;
		GRANT UPDATE ON public.plain TO anon`

// A table write that nothing can refuse after it ran commits in one round
// trip (the pipeline's implicit transaction, guarded by gucGuardSQL). A
// write whose triggers set response GUCs is refused by the guard, rolled
// back, and run again with an explicit transaction: it must still apply
// exactly once, answer with its headers, or be refused and leave nothing
// when the GUCs are malformed. A deferred constraint that fails at the
// implicit commit is reported and leaves nothing either.
func TestFoldedWrites(t *testing.T) {
	t.Parallel()
	e := setup(t, foldedSQL)
	ctx := context.Background()
	count := func(table string) int {
		t.Helper()
		var n int
		if err := e.db.Pool.QueryRow(ctx, "SELECT count(*) FROM public."+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Nothing sets GUCs: folded, committed.
	if r := e.do("POST", "/rest/v1/plain", "", `{"id":1,"note":"a"}`); r.status != 201 {
		t.Fatalf("plain insert: %d %s", r.status, r.body)
	}
	if n := count("plain"); n != 1 {
		t.Fatalf("plain rows = %d, want 1", n)
	}
	if len(e.api.gucWriters.m) != 0 {
		t.Fatalf("a plain insert was taken for a GUC writer: %v", e.api.gucWriters.m)
	}
	// return=minimal still counts the rows it changed, as PostgREST's
	// Content-Range says (0-0/* for one row, */* for none).
	for path, want := range map[string]string{"/rest/v1/plain?id=eq.1": "0-0/*", "/rest/v1/plain?id=eq.2": "*/*"} {
		if r := e.do("PATCH", path, "", `{"note":"b"}`); r.status != 204 || r.header.Get("Content-Range") != want {
			t.Fatalf("PATCH %s: %d Content-Range %q, want 204 %q", path, r.status, r.header.Get("Content-Range"), want)
		}
	}

	// The trigger sets a header: the folded attempt is refused and rolled
	// back, the second attempt commits once and answers with the header.
	r := e.do("POST", "/rest/v1/tagged", "", `{"id":7,"note":"ok"}`)
	if r.status != 201 || r.header.Get("X-Tagged") != "7" {
		t.Fatalf("tagged insert: %d %v %s", r.status, r.header, r.body)
	}
	if n := count("tagged"); n != 1 {
		t.Fatalf("tagged rows = %d, want exactly 1", n)
	}
	if len(e.api.gucWriters.m) != 1 {
		t.Fatalf("GUC writers remembered: %d, want 1", len(e.api.gucWriters.m))
	}
	// Remembered: the next insert of this shape goes straight to the
	// explicit transaction and still gets its header.
	if r := e.do("POST", "/rest/v1/tagged", "", `{"id":8,"note":"ok"}`); r.status != 201 || r.header.Get("X-Tagged") != "8" {
		t.Fatalf("second tagged insert: %d %v %s", r.status, r.header, r.body)
	}
	// Malformed GUCs: refused, nothing written.
	if r := e.do("POST", "/rest/v1/tagged", "", `{"id":9,"note":"bad"}`); r.status != 500 || !strings.Contains(r.body, "PGRST111") {
		t.Fatalf("malformed GUC insert: %d %s", r.status, r.body)
	}
	if n := count("tagged"); n != 2 {
		t.Fatalf("tagged rows after the refused insert = %d, want 2", n)
	}
	// A reload forgets what it learnt (the table's triggers may have changed).
	if err := e.api.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if len(e.api.gucWriters.m) != 0 {
		t.Fatal("a schema reload kept the remembered GUC writers")
	}

	// A deferred foreign key fails at the implicit commit.
	if r := e.do("POST", "/rest/v1/child", "", `{"id":1,"parent_id":42}`); r.status != 409 || !strings.Contains(r.body, "23503") {
		t.Fatalf("deferred FK violation: %d %s", r.status, r.body)
	}
	if n := count("child"); n != 0 {
		t.Fatalf("child rows = %d after a failed commit, want 0", n)
	}
}

// TestReloadCutByShutdownIsNotAnError: a reload that fails because the
// gateway is stopping is logged at Debug and counted as no reload at all;
// one that fails while running is an Error and counted as one.
func TestReloadCutByShutdownIsNotAnError(t *testing.T) {
	t.Parallel()
	e := setup(t)
	var log logtest.Buffer
	var outcomes []error
	var mu sync.Mutex
	api, err := New(context.Background(), Deps{Config: e.cfg, Pool: e.api.pool, Verifier: e.api.verifier,
		Log:      slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		OnReload: func(err error, _ time.Duration) { mu.Lock(); outcomes = append(outcomes, err); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	log.Take()
	outcomes = nil

	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	api.reloadAll(stopped)
	for _, l := range log.Take() {
		if strings.Contains(l, "level=ERROR") {
			t.Errorf("a reload cut by shutdown logged an error: %s", l)
		}
	}
	if len(outcomes) != 0 {
		t.Errorf("a reload cut by shutdown was counted: %v", outcomes)
	}

	// The same reload failing on a running gateway (a pool that is
	// closed) is still an error, logged and counted.
	closed, err := pgxpool.New(context.Background(), e.db.URL)
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	api.pool = closed
	api.reloadAll(context.Background())
	if got := log.String(); !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "schema cache reload failed") {
		t.Errorf("a failed reload on a running gateway was not an error: %s", got)
	}
	if len(outcomes) != 1 || outcomes[0] == nil {
		t.Errorf("outcomes = %v, want one error", outcomes)
	}
}

// callsSQL: VOLATILE functions that write — plainly, with a response
// header (malformed for n = 0), several rows, or a row a deferred foreign
// key refuses at commit.
const callsSQL = `CREATE TABLE public.log (n int);
		CREATE TABLE public.parent (id int PRIMARY KEY);
		CREATE TABLE public.child (id int PRIMARY KEY,
		  parent_id int REFERENCES public.parent DEFERRABLE INITIALLY DEFERRED);
		CREATE FUNCTION public.note(n int) RETURNS int LANGUAGE sql VOLATILE AS
		  'INSERT INTO public.log VALUES (n) RETURNING n';
		CREATE FUNCTION public.note_tagged(n int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
		BEGIN
		  INSERT INTO public.log VALUES (n);
		  PERFORM set_config('response.headers',
		    CASE WHEN n = 0 THEN '{"not":"an array"}' ELSE '[{"X-Noted":"' || n || '"}]' END, true);
		  RETURN n;
		END $$;
		CREATE FUNCTION public.note_many(n int) RETURNS SETOF int LANGUAGE sql VOLATILE AS
		  'INSERT INTO public.log SELECT g FROM generate_series(1, n) g RETURNING n';
		CREATE FUNCTION public.orphan(id int) RETURNS int LANGUAGE sql VOLATILE AS
		  'INSERT INTO public.child VALUES (id, 42) RETURNING id';
		GRANT SELECT, INSERT ON public.log, public.child TO anon`

// A call of a VOLATILE function by POST commits in the round trip that
// runs it, like a table write: guarded, so that a function setting
// response GUCs is rolled back and run again the two-round-trip way
// (remembered as a GUC writer, applied once, answered with its header).
// The checks that refuse a result after it ran — a singular response of
// several rows, strict max-affected — keep the explicit transaction:
// their refusals must leave nothing written. So must a deferred
// constraint failing at the implicit commit.
func TestFoldedCalls(t *testing.T) {
	t.Parallel()
	e := setup(t, callsSQL)
	logged := func(want int) {
		t.Helper()
		rows(t, e, "log", want)
	}

	if r := e.do("POST", "/rest/v1/rpc/note", "", `{"n":5}`); r.status != 200 || r.body != "5" {
		t.Fatalf("note: %d %s", r.status, r.body)
	}
	logged(1)
	if len(e.api.gucWriters.m) != 0 {
		t.Fatalf("a plain call was taken for a GUC writer: %v", e.api.gucWriters.m)
	}

	// The guard refuses the folded attempt: rolled back, run again, once.
	r := e.do("POST", "/rest/v1/rpc/note_tagged", "", `{"n":7}`)
	if r.status != 200 || r.body != "7" || r.header.Get("X-Noted") != "7" {
		t.Fatalf("note_tagged: %d %v %s", r.status, r.header, r.body)
	}
	logged(2)
	if len(e.api.gucWriters.m) != 1 {
		t.Fatalf("GUC writers remembered: %d, want 1 (the guard refused the folded call)", len(e.api.gucWriters.m))
	}
	if r := e.do("POST", "/rest/v1/rpc/note_tagged", "", `{"n":0}`); r.status != 500 || !strings.Contains(r.body, "PGRST111") {
		t.Fatalf("malformed GUC call: %d %s", r.status, r.body)
	}
	logged(2)

	// Refused after it ran: nothing stays.
	if r := e.do("POST", "/rest/v1/rpc/note_many", "", `{"n":2}`, "Accept", "application/vnd.pgrst.object+json"); r.status != 406 || !strings.Contains(r.body, "PGRST116") {
		t.Fatalf("singular call of two rows: %d %s", r.status, r.body)
	}
	logged(2)
	if r := e.do("POST", "/rest/v1/rpc/note_many", "", `{"n":3}`, "Prefer", "handling=strict, max-affected=2"); r.status != 400 || !strings.Contains(r.body, "PGRST124") {
		t.Fatalf("call over max-affected: %d %s", r.status, r.body)
	}
	logged(2)
	if r := e.do("POST", "/rest/v1/rpc/note_many", "", `{"n":2}`); r.status != 200 || r.body != "[1, 2]" {
		t.Fatalf("note_many: %d %s", r.status, r.body)
	}
	logged(4)

	if r := e.do("POST", "/rest/v1/rpc/orphan", "", `{"id":1}`); r.status != 409 || !strings.Contains(r.body, "23503") {
		t.Fatalf("deferred FK violation in a call: %d %s", r.status, r.body)
	}
	rows(t, e, "child", 0)
}
