package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/server"
)

// bigJSON is a PostgREST-like body well above the compression threshold.
var bigJSON = func() []byte {
	rows := make([]map[string]any, 200)
	for i := range rows {
		rows[i] = map[string]any{"id": i, "label_name": "Label number " + strings.Repeat("x", i%7)}
	}
	b, _ := json.Marshal(rows)
	return b
}()

func compressServer(t *testing.T) (http.Handler, string) {
	t.Helper()
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"DATABASE_URL": "postgres://x/y", "JWT_SECRET": "0123456789abcdef0123456789abcdef"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	js := bytes.Repeat([]byte("console.log('labelbase');\n"), 200)
	var br bytes.Buffer
	br.WriteString("BROTLI-TWIN") // the server sends twins as they are
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write(js)
	_ = zw.Close()
	web := fstest.MapFS{
		"index.html":            {Data: []byte("<html><head><!--labelbase:runtime-config--></head><body>" + strings.Repeat("<p>app</p>", 200) + "</body></html>")},
		"assets/app-1a2b.js":    {Data: js},
		"assets/app-1a2b.js.br": {Data: br.Bytes()},
		"assets/app-1a2b.js.gz": {Data: gz.Bytes()},
		"assets/plain-9z.css":   {Data: bytes.Repeat([]byte("body{margin:0}\n"), 200)},
	}
	mod := func(g *echo.Group) {
		g.GET("/big", func(c *echo.Context) error {
			c.Response().Header().Set("Content-Range", "0-199/*")
			return c.Blob(http.StatusOK, "application/json; charset=utf-8", bigJSON)
		})
		g.GET("/small", func(c *echo.Context) error { return c.JSON(http.StatusOK, map[string]int{"n": 1}) })
		g.GET("/none", func(c *echo.Context) error { return c.NoContent(http.StatusNoContent) })
		g.GET("/fail", func(c *echo.Context) error {
			e := apierr.New(http.StatusBadRequest, "PGRST100", "%s", strings.Repeat("bad ", 400))
			return e
		})
	}
	return server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), REST: mod, Web: web}), cfg.AnonKey
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAPIResponsesAreCompressed(t *testing.T) {
	t.Parallel()
	h, anonKey := compressServer(t)
	get := func(path, accept string) *http.Response {
		return do(h, "GET", path, map[string]string{"Accept-Encoding": accept, "apikey": anonKey}).Result()
	}

	res := get("/rest/v1/big", "br;q=1, gzip;q=0.8")
	body, _ := io.ReadAll(res.Body)
	if res.Header.Get("Content-Encoding") != "gzip" || res.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("big JSON: Content-Encoding %q, Vary %q", res.Header.Get("Content-Encoding"), res.Header.Get("Vary"))
	}
	if res.Header.Get("Content-Range") != "0-199/*" {
		t.Fatalf("Content-Range lost: %q", res.Header.Get("Content-Range"))
	}
	if !bytes.Equal(gunzip(t, body), bigJSON) {
		t.Fatal("decoded body differs from the original")
	}
	if len(body) >= len(bigJSON)/2 {
		t.Fatalf("gzip saved little: %d of %d bytes", len(body), len(bigJSON))
	}

	for _, accept := range []string{"", "identity", "gzip;q=0", "br"} {
		res := get("/rest/v1/big", accept)
		body, _ := io.ReadAll(res.Body)
		if res.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, bigJSON) {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, %d bytes", accept, res.Header.Get("Content-Encoding"), len(body))
		}
	}

	res = get("/rest/v1/small", "gzip")
	body, _ = io.ReadAll(res.Body)
	if res.Header.Get("Content-Encoding") != "" || string(body) != `{"n":1}`+"\n" && string(body) != `{"n":1}` {
		t.Errorf("small body: Content-Encoding %q, body %q", res.Header.Get("Content-Encoding"), body)
	}
	if res.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("small body: Vary %q (a cache must still key on Accept-Encoding)", res.Header.Get("Vary"))
	}

	res = get("/rest/v1/none", "gzip")
	if res.StatusCode != http.StatusNoContent || res.Header.Get("Content-Encoding") != "" {
		t.Errorf("204: status %d, Content-Encoding %q", res.StatusCode, res.Header.Get("Content-Encoding"))
	}

	head := do(h, "HEAD", "/rest/v1/big", map[string]string{"Accept-Encoding": "gzip", "apikey": anonKey}).Result()
	if head.Header.Get("Content-Encoding") != "" {
		t.Errorf("HEAD: Content-Encoding %q", head.Header.Get("Content-Encoding"))
	}

	// An error big enough to compress keeps its status and PostgREST shape.
	res = get("/rest/v1/fail", "gzip")
	body, _ = io.ReadAll(res.Body)
	if res.StatusCode != http.StatusBadRequest || res.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("error: status %d, Content-Encoding %q", res.StatusCode, res.Header.Get("Content-Encoding"))
	}
	var e map[string]any
	if err := json.Unmarshal(gunzip(t, body), &e); err != nil || e["code"] != "PGRST100" {
		t.Fatalf("error body: %v %v", e, err)
	}
}

func TestWebAssetsArePrecompressed(t *testing.T) {
	t.Parallel()
	h, _ := compressServer(t)
	cases := []struct{ accept, wantEnc, wantStart string }{
		{"gzip, deflate, br", "br", "BROTLI-TWIN"},
		{"gzip", "gzip", ""},
		{"", "", "console.log"},
		{"br;q=0, gzip", "gzip", ""},
	}
	for _, tc := range cases {
		res := do(h, "GET", "/assets/app-1a2b.js", map[string]string{"Accept-Encoding": tc.accept}).Result()
		body, _ := io.ReadAll(res.Body)
		if got := res.Header.Get("Content-Encoding"); got != tc.wantEnc {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", tc.accept, got, tc.wantEnc)
			continue
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") || res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("Accept-Encoding %q: Content-Type %q, Cache-Control %q", tc.accept, res.Header.Get("Content-Type"), res.Header.Get("Cache-Control"))
		}
		switch {
		case tc.wantEnc == "gzip":
			if !bytes.HasPrefix(gunzip(t, body), []byte("console.log")) {
				t.Errorf("gzip twin does not decode to the asset")
			}
		case !bytes.HasPrefix(body, []byte(tc.wantStart)):
			t.Errorf("Accept-Encoding %q: body starts %q", tc.accept, body[:min(20, len(body))])
		}
		if tc.wantEnc != "" && !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %q: Vary %q", tc.accept, res.Header.Get("Vary"))
		}
	}
	// No twin: the middleware compresses it on the fly instead.
	res := do(h, "GET", "/assets/plain-9z.css", map[string]string{"Accept-Encoding": "gzip"}).Result()
	body, _ := io.ReadAll(res.Body)
	if res.Header.Get("Content-Encoding") != "gzip" || !bytes.HasPrefix(gunzip(t, body), []byte("body{margin:0}")) {
		t.Errorf("asset without twin: Content-Encoding %q", res.Header.Get("Content-Encoding"))
	}
	// index.html carries the runtime config and is compressed per request.
	res = do(h, "GET", "/labels", map[string]string{"Accept-Encoding": "gzip"}).Result()
	body, _ = io.ReadAll(res.Body)
	if res.Header.Get("Content-Encoding") != "gzip" || !bytes.Contains(gunzip(t, body), []byte("window.__LABELBASE__=")) {
		t.Errorf("index.html: Content-Encoding %q", res.Header.Get("Content-Encoding"))
	}
}
