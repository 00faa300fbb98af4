package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/server"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSecret = "test-secret-test-secret-test-secret-0123456789"

// fakeClock is the injectable clock: tests move it to cross reuse
// intervals, token expiry and rate-limit refills without sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// testEnv is one gateway with only the auth module, on its own database.
type testEnv struct {
	t     testing.TB
	db    *pgtest.DB
	cfg   *config.Config
	api   *API
	h     http.Handler
	clock *fakeClock
}

// setup builds a gateway on a fresh database. env overrides the config.
func setup(t testing.TB, env map[string]string) *testEnv {
	t.Helper()
	db := pgtest.New(t)
	vars := map[string]string{
		"DATABASE_URL": db.URL,
		"JWT_SECRET":   testSecret,
		"BCRYPT_COST":  "4",
		"SITE_URL":     "http://labelbase.test",
	}
	for k, v := range env {
		vars[k] = v
	}
	cfg := configtest.New(t, vars)
	clock := &fakeClock{t: time.Now().UTC().Truncate(time.Second)}
	api, err := New(Deps{Config: cfg, Pool: db.Pool, Log: slog.New(slog.DiscardHandler), Now: clock.Now})
	if err != nil {
		t.Fatalf("auth.New: %v", err)
	}
	// Server faults are logged with their cause; show them in the test log.
	log := slog.New(slog.NewTextHandler(testLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	h := server.New(server.Deps{Config: cfg, Log: log, Ready: db.Pool.Ping, Auth: api.Register})
	return &testEnv{t: t, db: db, cfg: cfg, api: api, h: h, clock: clock}
}

type testLogWriter struct{ t testing.TB }

func (w testLogWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// response is a recorded reply with its JSON body decoded when it has one.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   map[string]any
}

func (r *response) str(key string) string {
	s, _ := r.JSON[key].(string)
	return s
}

// req describes one request. By default it carries the anon key and the
// 2024-01-01 API version, as supabase-js does.
type req struct {
	method  string
	path    string
	body    any // string is sent verbatim, anything else as JSON
	bearer  string
	ip      string
	headers map[string]string
	legacy  bool // omit X-Supabase-Api-Version
	noKey   bool
	ctx     context.Context // the request's context (default: background)
}

func (e *testEnv) do(r req) *response {
	e.t.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		body = bytes.NewReader(js)
	}
	hr := httptest.NewRequest(r.method, "/auth/v1"+r.path, body)
	if r.ctx != nil {
		hr = hr.WithContext(r.ctx)
	}
	if !r.noKey {
		hr.Header.Set("apikey", e.cfg.AnonKey)
	}
	if !r.legacy {
		hr.Header.Set("X-Supabase-Api-Version", "2024-01-01")
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json;charset=UTF-8")
	}
	if r.bearer != "" {
		hr.Header.Set("Authorization", "Bearer "+r.bearer)
	} else if !r.noKey {
		hr.Header.Set("Authorization", "Bearer "+e.cfg.AnonKey)
	}
	if r.ip != "" {
		hr.RemoteAddr = r.ip + ":4711"
	}
	for k, v := range r.headers {
		hr.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, hr)
	out := &response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	if len(out.Body) > 0 && out.Body[0] == '{' {
		if err := json.Unmarshal(out.Body, &out.JSON); err != nil {
			e.t.Fatalf("%s %s: bad JSON %q: %v", r.method, r.path, out.Body, err)
		}
	}
	return out
}

// expect checks status and, for errors, GoTrue's 2024 shape and code.
func (r *response) expect(t testing.TB, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body %s", r.Status, status, r.Body)
	}
	if code == "" {
		return
	}
	if got := r.str("code"); got != code {
		t.Fatalf("code = %q, want %q; body %s", got, code, r.Body)
	}
	if got := r.Header.Get("X-Sb-Error-Code"); got != code {
		t.Errorf("X-Sb-Error-Code = %q, want %q", got, code)
	}
	if r.str("message") == "" {
		t.Errorf("no message in %s", r.Body)
	}
}

// signUp creates a user through the API and returns the session response.
func (e *testEnv) signUp(email, password string) *response {
	e.t.Helper()
	code := pgtest.CreateInvite(e.t, e.db.Pool, 1)
	r := e.do(req{method: "POST", path: "/signup", body: map[string]any{
		"email": email, "password": password, "data": map[string]any{"invite_code": code},
	}})
	r.expect(e.t, http.StatusOK, "")
	return r
}

// signIn returns a password-grant session response, which must succeed.
func (e *testEnv) signIn(email, password string) *response {
	e.t.Helper()
	r := e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{
		"email": email, "password": password, "gotrue_meta_security": map[string]any{},
	}})
	r.expect(e.t, http.StatusOK, "")
	return r
}

func (e *testEnv) refresh(tok string) *response {
	e.t.Helper()
	return e.do(req{method: "POST", path: "/token?grant_type=refresh_token", body: map[string]any{"refresh_token": tok}})
}

func (e *testEnv) count(sql string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func (e *testEnv) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Pool.Exec(context.Background(), sql, args...); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

// obj returns r.JSON[key] as an object.
func obj(t testing.TB, m map[string]any, key string) map[string]any {
	t.Helper()
	o, ok := m[key].(map[string]any)
	if !ok {
		t.Fatalf("%s is %T, not an object, in %v", key, m[key], m)
	}
	return o
}
