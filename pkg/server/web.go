package server

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
)

// runtimeConfigMarker is replaced in index.html by a script that hands the
// page what a static build cannot know: the anon key and the analytics
// script. One build thereby serves every deployment.
const runtimeConfigMarker = "<!--labelbase:runtime-config-->"

// registerWeb serves the single-page app: files as they are (hashed assets
// cached for a year), and index.html, never cached, for every other path so
// client-side routes survive a reload.
//
// The build (frontend/scripts/precompress.mjs) leaves name.br and name.gz
// beside each compressible file; they are sent with Content-Encoding to
// clients that accept them, so nothing is compressed per request. index.html
// carries the runtime config, so it is gzipped once here instead.
func registerWeb(e *echo.Echo, files fs.FS, cfg *config.Config) {
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		index = []byte("<!doctype html><title>Labelbase</title><p>No web app was built into this binary.</p>")
	}
	index = injectRuntimeConfig(index, cfg)
	indexGz := gzipBytes(index)

	serve := func(c *echo.Context) error {
		p := strings.TrimPrefix(path.Clean("/"+c.Request().URL.Path), "/")
		// API prefixes never fall back to the app: a mistyped API path gets
		// a 404 in the API's shape, not an HTML page.
		if strings.HasPrefix(p, "auth/") || strings.HasPrefix(p, "rest/") || p == "auth" || p == "rest" {
			return echo.ErrNotFound
		}
		accept := c.Request().Header.Get("Accept-Encoding")
		h := c.Response().Header()
		if p != "" && p != "index.html" {
			if b, err := fs.ReadFile(files, p); err == nil {
				if strings.HasPrefix(p, "assets/") {
					h.Set("Cache-Control", "public, max-age=31536000, immutable")
				} else {
					h.Set("Cache-Control", "public, max-age=3600")
				}
				ct := mime.TypeByExtension(path.Ext(p))
				if ct == "" {
					ct = http.DetectContentType(b)
				}
				return c.Blob(http.StatusOK, ct, precompressed(files, p, b, accept, h))
			}
			if strings.HasPrefix(p, "assets/") {
				return echo.ErrNotFound
			}
		}
		h.Set("Cache-Control", "no-cache, no-store, must-revalidate")
		h.Add("Vary", "Accept-Encoding")
		if acceptedQ(accept, "gzip") > 0 {
			h.Set("Content-Encoding", "gzip")
			return c.HTMLBlob(http.StatusOK, indexGz)
		}
		return c.HTMLBlob(http.StatusOK, index)
	}
	e.GET("/*", serve)
	e.HEAD("/*", serve)
}

// precompressed returns the build's brotli or gzip variant of file p when
// the client accepts it and it exists, setting Content-Encoding, and plain
// otherwise. Vary is set whenever a variant exists, so a shared cache never
// hands a br body to a client that asked for identity.
func precompressed(files fs.FS, p string, plain []byte, accept string, h http.Header) []byte {
	var have []string
	for _, enc := range []string{"br", "gzip"} {
		if _, err := fs.Stat(files, p+encodingSuffix[enc]); err == nil {
			have = append(have, enc)
		}
	}
	if len(have) == 0 {
		return plain
	}
	h.Add("Vary", "Accept-Encoding")
	enc := preferredEncoding(accept, have...)
	if enc == "" {
		return plain
	}
	b, err := fs.ReadFile(files, p+encodingSuffix[enc])
	if err != nil {
		return plain
	}
	h.Set("Content-Encoding", enc)
	return b
}

var encodingSuffix = map[string]string{"br": ".br", "gzip": ".gz"}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

func injectRuntimeConfig(index []byte, cfg *config.Config) []byte {
	js, _ := json.Marshal(map[string]string{
		"anonKey":         cfg.AnonKey,
		"analyticsScript": cfg.AnalyticsScriptURL,
	})
	// JSON inside a script element must not be able to close it.
	safe := strings.ReplaceAll(string(js), "</", `<\/`)
	script := "<script>window.__LABELBASE__=" + safe + "</script>"
	return bytes.Replace(index, []byte(runtimeConfigMarker), []byte(script), 1)
}
