package server_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/server"
)

func testServer(t *testing.T, origins string) (*echo.Echo, *config.Config) {
	t.Helper()
	cfg := configtest.New(t, map[string]string{
		"CORS_ALLOWED_ORIGINS": origins,
		"ANALYTICS_SCRIPT_URL": "https://stats.example/s.js",
	})
	web := fstest.MapFS{
		"index.html":         {Data: []byte("<html><head><!--labelbase:runtime-config--></head><body>app</body></html>")},
		"assets/app-1a2b.js": {Data: []byte("console.log(1)")},
		"favicon.svg":        {Data: []byte("<svg/>")},
	}
	mod := func(g *echo.Group) {
		g.GET("/ok", func(c *echo.Context) error { return c.JSON(200, map[string]any{"role": c.Get(server.KeyRole)}) })
		g.GET("/panic", func(c *echo.Context) error { panic("boom") })
	}
	e := server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), Auth: mod, REST: mod, Web: web})
	return e, cfg
}

func do(e http.Handler, method, path string, h map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	for k, v := range h {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	return w
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	e, cfg := testServer(t, "")
	cases := []struct {
		name, path string
		headers    map[string]string
		status     int
		contains   string
	}{
		{"no key on rest", "/rest/v1/ok", nil, 401, `"message":"No API key found in request"`},
		{"no key on auth", "/auth/v1/ok", nil, 401, `"error_code":"no_api_key"`},
		{"wrong key", "/rest/v1/ok", map[string]string{"apikey": "nope"}, 401, "Invalid API key"},
		{"anon key", "/rest/v1/ok", map[string]string{"apikey": cfg.AnonKey}, 200, `"role":"anon"`},
		{"service key", "/auth/v1/ok", map[string]string{"apikey": cfg.ServiceRoleKey}, 200, `"role":"service_role"`},
		{"key as query parameter", "/rest/v1/ok?apikey=" + cfg.AnonKey, nil, 200, `"role":"anon"`},
		{"panic becomes a 500 without details", "/rest/v1/panic", map[string]string{"apikey": cfg.AnonKey}, 500, `"unexpected_failure"`},
		{"unknown API path is a JSON 404", "/rest/v1/nothing/here/at/all", map[string]string{"apikey": cfg.AnonKey}, 404, `"code"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(e, "GET", tc.path, tc.headers)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.contains) {
				t.Fatalf("%d %s; want %d containing %s", w.Code, w.Body, tc.status, tc.contains)
			}
			if strings.Contains(w.Body.String(), "boom") {
				t.Fatal("panic value leaked")
			}
		})
	}
	// GoTrue errors carry the code in a header too.
	if w := do(e, "GET", "/auth/v1/ok", map[string]string{"X-Supabase-Api-Version": "2024-01-01"}); w.Header().Get("X-Sb-Error-Code") != "no_api_key" ||
		w.Header().Get("X-Supabase-Api-Version") != "2024-01-01" {
		t.Fatalf("headers %v", w.Header())
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	e, _ := testServer(t, "https://app.example")
	w := do(e, "OPTIONS", "/rest/v1/labels", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
	if w.Code != 204 || w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(w.Header().Get("Access-Control-Allow-Headers"), "x-supabase-api-version") ||
		!strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "Content-Range") {
		t.Fatalf("preflight: %d %v", w.Code, w.Header())
	}
	w = do(e, "OPTIONS", "/rest/v1/labels", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatal("a foreign origin was allowed")
	}
}

func TestWebApp(t *testing.T) {
	t.Parallel()
	e, cfg := testServer(t, "")
	w := do(e, "GET", "/collection", nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "window.__LABELBASE__=") || !strings.Contains(w.Header().Get("Cache-Control"), "no-store") {
		t.Fatalf("SPA fallback: %d %v %s", w.Code, w.Header(), w.Body)
	}
	body := w.Body.String()
	start := strings.Index(body, "window.__LABELBASE__=") + len("window.__LABELBASE__=")
	end := strings.Index(body[start:], "</script>")
	var rc map[string]string
	if err := json.Unmarshal([]byte(body[start:start+end]), &rc); err != nil || rc["anonKey"] != cfg.AnonKey || rc["analyticsScript"] != "https://stats.example/s.js" {
		t.Fatalf("runtime config %q: %v", body[start:start+end], err)
	}
	if strings.Contains(body, cfg.ServiceRoleKey) {
		t.Fatal("the service-role key must never reach the page")
	}
	for _, h := range []string{"X-Content-Type-Options", "X-Frame-Options", "Content-Security-Policy"} {
		if w.Header().Get(h) == "" {
			t.Errorf("the app page lacks %s", h)
		}
	}
	w = do(e, "GET", "/assets/app-1a2b.js", nil)
	if w.Code != 200 || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") || !strings.Contains(w.Header().Get("Content-Type"), "javascript") {
		t.Fatalf("asset: %d %v", w.Code, w.Header())
	}
	if w := do(e, "GET", "/assets/missing.js", nil); w.Code != 404 {
		t.Fatalf("missing asset: %d", w.Code)
	}
}

// The access log reports the status the client gets, also for routing
// errors that the error handler renders after the log line is written.
func TestAccessLogStatus(t *testing.T) {
	t.Parallel()
	var buf logtest.Buffer
	cfg := configtest.New(t, nil)
	e := server.New(server.Deps{Config: cfg, Log: slog.New(slog.NewTextHandler(&buf, nil)),
		REST: func(g *echo.Group) {}})
	do(e, "GET", "/rest/v1/nothing", map[string]string{"apikey": cfg.AnonKey})
	do(e, "GET", "/rest/v1/nothing", nil)
	out := buf.String()
	if !strings.Contains(out, "status=404") || !strings.Contains(out, "status=401") || strings.Contains(out, "status=500") {
		t.Fatalf("access log:\n%s", out)
	}
}

// TestSecurityHeadersStayPerResponse: every response carries the four
// headers, and a handler that adds to one of them (their values share one
// array) or even writes into one changes that header of its own response
// only.
func TestSecurityHeadersStayPerResponse(t *testing.T) {
	t.Parallel()
	cfg := configtest.New(t, nil)
	e := server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), Routes: func(e *echo.Echo) {
		e.GET("/sandboxed", func(c *echo.Context) error {
			h := c.Response().Header()
			h.Add("X-Frame-Options", "SAMEORIGIN") // grows the slice just before Content-Security-Policy's
			h.Values("Referrer-Policy")[0] = "unsafe-url"
			if got := h.Values("Content-Security-Policy"); len(got) != 1 || got[0] != "frame-ancestors 'none'" {
				t.Errorf("after adding to X-Frame-Options, Content-Security-Policy = %q", got)
			}
			return c.NoContent(http.StatusNoContent)
		})
		e.GET("/plain", func(c *echo.Context) error { return c.NoContent(http.StatusNoContent) })
	}})
	want := map[string]string{
		"X-Content-Type-Options":  "nosniff",
		"X-Frame-Options":         "DENY",
		"Content-Security-Policy": "frame-ancestors 'none'",
		"Referrer-Policy":         "strict-origin-when-cross-origin",
	}
	_ = do(e, "GET", "/sandboxed", nil)
	for range 2 {
		w := do(e, "GET", "/plain", nil)
		for k, v := range want {
			if got := w.Header().Values(k); len(got) != 1 || got[0] != v {
				t.Errorf("%s = %q, want [%q]", k, got, v)
			}
		}
	}
}
