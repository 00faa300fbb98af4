package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/server"
)

// rows is a PostgREST-like list body well above the 1 KB threshold.
func rows(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"id": i, "title": fmt.Sprintf("Release number %d", i), "artist": "Someone"}
	}
	return out
}

func compressServer(t testing.TB, web fstest.MapFS) (*echo.Echo, *config.Config) {
	t.Helper()
	cfg := configtest.New(t, map[string]string{"ANALYTICS_SCRIPT_URL": "https://stats.example/s.js"})
	mod := func(g *echo.Group) {
		big := func(c *echo.Context) error {
			c.Response().Header().Set("Content-Range", "0-49/*")
			return c.JSON(http.StatusOK, rows(50))
		}
		g.GET("/big", big)
		g.HEAD("/big", big)
		g.GET("/small", func(c *echo.Context) error { return c.JSON(http.StatusOK, rows(1)) })
		g.DELETE("/big", func(c *echo.Context) error { return c.NoContent(http.StatusNoContent) })
		g.GET("/encoded", func(c *echo.Context) error {
			c.Response().Header().Set("Content-Encoding", "br")
			return c.Blob(http.StatusOK, "application/json", bytes.Repeat([]byte("x"), 4096))
		})
		g.GET("/image", func(c *echo.Context) error {
			return c.Blob(http.StatusOK, "image/png", bytes.Repeat([]byte{1, 2, 3}, 2000))
		})
		g.GET("/fail", func(c *echo.Context) error { return echo.NewHTTPError(http.StatusBadRequest, "bad") })
	}
	return server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), Auth: mod, REST: mod, Web: web}), cfg
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAPICompressedAboveThreshold(t *testing.T) {
	t.Parallel()
	e, cfg := compressServer(t, nil)
	want, _ := json.Marshal(rows(50))
	for _, prefix := range []string{"/rest/v1", "/auth/v1"} {
		w := do(e, "GET", prefix+"/big", map[string]string{"apikey": cfg.AnonKey, "Accept-Encoding": "br;q=1.0, gzip;q=0.8, *;q=0.1"})
		h := w.Header()
		if w.Code != 200 || h.Get("Content-Encoding") != "gzip" || !strings.Contains(strings.Join(h.Values("Vary"), ","), "Accept-Encoding") {
			t.Fatalf("%s: %d %v", prefix, w.Code, h)
		}
		if h.Get("Content-Range") != "0-49/*" || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || h.Get("Content-Length") != "" {
			t.Fatalf("%s: headers lost or stale: %v", prefix, h)
		}
		if w.Body.Len() >= len(want) {
			t.Fatalf("%s: compressed body %d bytes, plain %d", prefix, w.Body.Len(), len(want))
		}
		if got := bytes.TrimSpace(gunzip(t, w.Body.Bytes())); !bytes.Equal(got, want) {
			t.Fatalf("%s: decoded body differs:\n%s", prefix, got)
		}
	}
}

func TestAPINotCompressed(t *testing.T) {
	t.Parallel()
	e, cfg := compressServer(t, nil)
	key := cfg.AnonKey
	cases := []struct {
		name, method, path, accept string
		code                       int
	}{
		{"small body", "GET", "/rest/v1/small", "gzip", 200},
		{"no Accept-Encoding", "GET", "/rest/v1/big", "", 200},
		{"identity only", "GET", "/rest/v1/big", "identity", 200},
		{"gzip refused with q=0", "GET", "/rest/v1/big", "gzip;q=0, identity", 200},
		{"star refused, gzip not named", "GET", "/rest/v1/big", "*;q=0", 200},
		{"malformed q", "GET", "/rest/v1/big", "gzip;q=lots", 200},
		{"HEAD", "HEAD", "/rest/v1/big", "gzip", 200},
		{"204", "DELETE", "/rest/v1/big", "gzip", 204},
		{"already encoded", "GET", "/rest/v1/encoded", "gzip", 200},
		{"not text", "GET", "/rest/v1/image", "gzip", 200},
		{"error", "GET", "/rest/v1/fail", "gzip", 400},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"apikey": key}
			if tc.accept != "" {
				h["Accept-Encoding"] = tc.accept
			}
			w := do(e, tc.method, tc.path, h)
			if w.Code != tc.code {
				t.Fatalf("status %d, want %d", w.Code, tc.code)
			}
			if ce := w.Header().Get("Content-Encoding"); ce == "gzip" {
				t.Fatalf("compressed: %v", w.Header())
			}
			switch tc.path {
			case "/rest/v1/big":
				if tc.method == "GET" {
					var got []map[string]any
					if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got) != 50 {
						t.Fatalf("plain body: %v %q", err, w.Body.String()[:min(80, w.Body.Len())])
					}
				} else if tc.method == "DELETE" && w.Body.Len() != 0 { // (the recorder keeps HEAD bodies net/http would drop)
					t.Fatalf("%s has a body: %q", tc.method, w.Body.String())
				}
			case "/rest/v1/encoded":
				if w.Header().Get("Content-Encoding") != "br" || w.Body.Len() != 4096 {
					t.Fatalf("encoded body changed: %v %d", w.Header(), w.Body.Len())
				}
			}
		})
	}
}

// The wildcard grants gzip when gzip is not named.
func TestAPICompressedForWildcard(t *testing.T) {
	t.Parallel()
	e, cfg := compressServer(t, nil)
	w := do(e, "GET", "/rest/v1/big", map[string]string{"apikey": cfg.AnonKey, "Accept-Encoding": "*"})
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("%v", w.Header())
	}
}

func testWeb() fstest.MapFS {
	js := []byte(strings.Repeat("console.log('labelbase');\n", 100))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(js); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return fstest.MapFS{
		"index.html":            {Data: []byte("<html><head><!--labelbase:runtime-config--></head><body>app</body></html>")},
		"assets/app-1a2b.js":    {Data: js},
		"assets/app-1a2b.js.gz": {Data: gz.Bytes()},
		// The server never decodes a variant; these bytes only need to be recognisable.
		"assets/app-1a2b.js.br":   {Data: []byte("brotli-variant")},
		"assets/gzonly-9z.css":    {Data: []byte("body{}")},
		"assets/gzonly-9z.css.gz": {Data: []byte("not-really-gzip")},
		"assets/plain-3c4d.js":    {Data: []byte("console.log(2)")},
	}
}

func TestPrecompressedAssets(t *testing.T) {
	t.Parallel()
	web := testWeb()
	e, _ := compressServer(t, web)
	plain := web["assets/app-1a2b.js"].Data
	cases := []struct {
		name, path, accept, enc string
		body                    []byte
	}{
		{"brotli preferred on a tie", "/assets/app-1a2b.js", "gzip, deflate, br, zstd", "br", web["assets/app-1a2b.js.br"].Data},
		{"gzip preferred by q", "/assets/app-1a2b.js", "br;q=0.5, gzip", "gzip", web["assets/app-1a2b.js.gz"].Data},
		{"gzip only", "/assets/app-1a2b.js", "gzip", "gzip", web["assets/app-1a2b.js.gz"].Data},
		{"identity", "/assets/app-1a2b.js", "", "", plain},
		{"both refused", "/assets/app-1a2b.js", "br;q=0, gzip;q=0", "", plain},
		{"only gz variant, br asked", "/assets/gzonly-9z.css", "br", "", []byte("body{}")},
		{"only gz variant, gzip asked", "/assets/gzonly-9z.css", "br, gzip", "gzip", []byte("not-really-gzip")},
		{"no variant", "/assets/plain-3c4d.js", "br, gzip", "", []byte("console.log(2)")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := do(e, "GET", tc.path, map[string]string{"Accept-Encoding": tc.accept})
			h := w.Header()
			if w.Code != 200 || h.Get("Content-Encoding") != tc.enc || !bytes.Equal(w.Body.Bytes(), tc.body) {
				t.Fatalf("%d %v body %d bytes", w.Code, h, w.Body.Len())
			}
			if h.Get("Cache-Control") != "public, max-age=31536000, immutable" {
				t.Fatalf("cache: %v", h)
			}
			wantCT := "text/javascript; charset=utf-8"
			if strings.HasSuffix(tc.path, ".css") {
				wantCT = "text/css; charset=utf-8"
			}
			if h.Get("Content-Type") != wantCT {
				t.Fatalf("content type %q", h.Get("Content-Type"))
			}
			vary := strings.Contains(strings.Join(h.Values("Vary"), ","), "Accept-Encoding")
			if vary != (tc.path != "/assets/plain-3c4d.js") {
				t.Fatalf("Vary: %v", h.Values("Vary"))
			}
		})
	}
	// The gzip variant decodes to the file.
	w := do(e, "GET", "/assets/app-1a2b.js", map[string]string{"Accept-Encoding": "gzip"})
	if got := gunzip(t, w.Body.Bytes()); !bytes.Equal(got, plain) {
		t.Fatal("gzip variant does not decode to the file")
	}
}

func TestIndexCompressedWithRuntimeConfig(t *testing.T) {
	t.Parallel()
	e, cfg := compressServer(t, testWeb())
	for _, p := range []string{"/", "/labels", "/index.html"} {
		w := do(e, "GET", p, map[string]string{"Accept-Encoding": "gzip, br"})
		h := w.Header()
		if w.Code != 200 || h.Get("Content-Encoding") != "gzip" || !strings.Contains(strings.Join(h.Values("Vary"), ","), "Accept-Encoding") ||
			h.Get("Cache-Control") != "no-cache, no-store, must-revalidate" || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %v", p, w.Code, h)
		}
		html := string(gunzip(t, w.Body.Bytes()))
		if !strings.Contains(html, `"anonKey":"`+cfg.AnonKey+`"`) || !strings.Contains(html, "https://stats.example/s.js") || strings.Contains(html, "labelbase:runtime-config") {
			t.Fatalf("%s: runtime config missing: %s", p, html)
		}
	}
	w := do(e, "GET", "/", map[string]string{"Accept-Encoding": "gzip;q=0"})
	if w.Header().Get("Content-Encoding") != "" || !strings.Contains(w.Body.String(), cfg.AnonKey) {
		t.Fatalf("identity index: %v %q", w.Header(), w.Body.String())
	}
}

// Every line logged before Close is written by the time Close returns,
// with the status and the bytes that went on the wire.
func TestAccessLogFlushesOnClose(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil))
	// A queue much smaller than the number of lines: producers must wait, not drop.
	al := server.NewAccessLog(log, 8, nil)
	_, cfg := compressServer(t, nil)
	e := server.New(server.Deps{Config: cfg, Log: log, AccessLog: al, REST: func(g *echo.Group) {
		g.GET("/big", func(c *echo.Context) error { return c.JSON(http.StatusOK, rows(50)) })
	}})
	const n = 300
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 4 {
				r := httptest.NewRequest("GET", "/rest/v1/big", nil)
				r.Header.Set("apikey", cfg.AnonKey)
				if i%2 == 0 {
					r.Header.Set("Accept-Encoding", "gzip")
				}
				e.ServeHTTP(httptest.NewRecorder(), r)
			}
		}()
	}
	wg.Wait()
	al.Close()
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	plain, _ := json.Marshal(rows(50))
	var gzipped, whole int
	for _, l := range lines {
		if !strings.Contains(l, "status=200") || !strings.Contains(l, "path=/rest/v1/big") {
			t.Fatalf("line: %s", l)
		}
		if strings.Contains(l, fmt.Sprintf("bytes=%d ", len(plain)+1)) { // echo's JSON ends with a newline
			whole++
		} else {
			gzipped++
		}
	}
	if whole != n/2 || gzipped != n/2 {
		t.Fatalf("plain=%d compressed=%d, want %d each:\n%s", whole, gzipped, n/2, lines[0])
	}
	// After Close a straggler is still written, synchronously.
	al.Log(slog.NewRecord(time.Now(), slog.LevelInfo, "late", 0))
	if !strings.Contains(buf.String(), "msg=late") {
		t.Fatal("line after Close lost")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// BenchmarkAPICompression measures the middleware's cost per 50-row list
// response, plain vs gzip.
func BenchmarkAPICompression(b *testing.B) {
	e, cfg := compressServer(b, nil)
	for _, accept := range []string{"", "gzip"} {
		b.Run("accept="+accept, func(b *testing.B) {
			b.ReportAllocs()
			r := httptest.NewRequest("GET", "/rest/v1/big", nil)
			r.Header.Set("apikey", cfg.AnonKey)
			r.Header.Set("Accept-Encoding", accept)
			for b.Loop() {
				e.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}

// A streaming handler that flushes gets what it wrote so far, compressed
// once past the threshold, and the stream still decodes whole.
func TestAPICompressedStreamFlushes(t *testing.T) {
	t.Parallel()
	cfg := configtest.New(t, nil)
	chunk := strings.Repeat("line of text\n", 100)
	var flushedAt int
	rec := httptest.NewRecorder()
	e := server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), REST: func(g *echo.Group) {
		g.GET("/stream", func(c *echo.Context) error {
			c.Response().Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(c.Response(), chunk) // a recorder does not fail
			_ = http.NewResponseController(c.Response()).Flush()
			flushedAt = rec.Body.Len()
			_, _ = io.WriteString(c.Response(), chunk)
			return nil
		})
	}})
	r := httptest.NewRequest("GET", "/rest/v1/stream", nil)
	r.Header.Set("apikey", cfg.AnonKey)
	r.Header.Set("Accept-Encoding", "gzip")
	e.ServeHTTP(rec, r)
	if rec.Header().Get("Content-Encoding") != "gzip" || flushedAt == 0 || !rec.Flushed {
		t.Fatalf("flush: %v, %d bytes at flush", rec.Header(), flushedAt)
	}
	if got := string(gunzip(t, rec.Body.Bytes())); got != chunk+chunk {
		t.Fatalf("decoded %d bytes, want %d", len(got), 2*len(chunk))
	}
}
