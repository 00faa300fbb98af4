package server

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

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
func registerWeb(e *echo.Echo, files fs.FS, cfg *config.Config) {
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		index = []byte("<!doctype html><title>Labelbase</title><p>No web app was built into this binary.</p>")
	}
	index = injectRuntimeConfig(index, cfg)

	serve := func(c *echo.Context) error {
		p := strings.TrimPrefix(path.Clean("/"+c.Request().URL.Path), "/")
		// API prefixes never fall back to the app: a mistyped API path gets
		// a 404 in the API's shape, not an HTML page.
		if strings.HasPrefix(p, "auth/") || strings.HasPrefix(p, "rest/") || p == "auth" || p == "rest" {
			return echo.ErrNotFound
		}
		if p != "" && p != "index.html" {
			if b, err := fs.ReadFile(files, p); err == nil {
				h := c.Response().Header()
				if strings.HasPrefix(p, "assets/") {
					h.Set("Cache-Control", "public, max-age=31536000, immutable")
				} else {
					h.Set("Cache-Control", "public, max-age=3600")
				}
				ct := mime.TypeByExtension(path.Ext(p))
				if ct == "" {
					ct = http.DetectContentType(b)
				}
				if enc, zb := precompressed(files, p, c.Request().Header.Get("Accept-Encoding")); zb != nil {
					h.Set("Content-Encoding", enc)
					h.Add("Vary", "Accept-Encoding")
					return c.Blob(http.StatusOK, ct, zb)
				}
				return c.Blob(http.StatusOK, ct, b)
			}
			if strings.HasPrefix(p, "assets/") {
				return echo.ErrNotFound
			}
		}
		c.Response().Header().Set("Cache-Control", "no-cache, no-store, must-revalidate")
		return c.HTMLBlob(http.StatusOK, index)
	}
	e.GET("/*", serve)
	e.HEAD("/*", serve)
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

// precompressed returns the build's .br or .gz twin of file p (written by
// frontend/scripts/precompress.mjs) when the client accepts that encoding,
// brotli first: it is smaller, and compressing at build time costs nothing
// per request. A file without a twin is served as it is (the compression
// middleware may still gzip it).
func precompressed(files fs.FS, p, acceptEncoding string) (string, []byte) {
	for _, enc := range []struct{ name, ext string }{{"br", ".br"}, {"gzip", ".gz"}} {
		if !acceptsEncoding(acceptEncoding, enc.name) {
			continue
		}
		if b, err := fs.ReadFile(files, p+enc.ext); err == nil {
			return enc.name, b
		}
	}
	return "", nil
}
