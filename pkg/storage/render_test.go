package storage

import (
	"bytes"
	"context"
	"image"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
)

// TestRenderCacheAndConcurrencyCap: a render is kept per object version (a
// repeat needs no bytes, a new upload is rendered anew), and no more than
// STORAGE_IMAGE_CONCURRENCY renders run at once; a caller that gives up
// while waiting for a slot is a 499, not a fault.
func TestRenderCacheAndConcurrencyCap(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"STORAGE_IMAGE_CONCURRENCY": "1"}, policies)
	ctx := context.Background()
	e.do(http.MethodPost, "/object/public/c.jpg", e.service, bytes.NewReader(testJPEG(t, 160, 120)), "Content-Type", "image/jpeg").wantOK(t)
	const path = "/render/image/public/public/c.jpg?width=30"
	first := e.do(http.MethodGet, path, "", nil)
	first.wantOK(t)

	// The blob goes; the same render still answers, from the cache.
	var version string
	if err := e.db.Pool.QueryRow(ctx, `SELECT version FROM storage.objects WHERE name = 'c.jpg'`).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := e.be.Delete(ctx, version); err != nil {
		t.Fatal(err)
	}
	again := e.do(http.MethodGet, path, "", nil)
	again.wantOK(t)
	if !bytes.Equal(again.body, first.body) {
		t.Fatal("a repeated render was not served from the cache")
	}
	e.do(http.MethodGet, "/render/image/public/public/c.jpg?width=31", "", nil).wantErr(t, "404", "Object not found")

	// A new upload of the key is a new version: rendered anew, never the old one.
	e.do(http.MethodPost, "/object/public/c.jpg", e.service, bytes.NewReader(testJPEG(t, 100, 50)), "Content-Type", "image/jpeg", "X-Upsert", "true").wantOK(t)
	fresh := e.do(http.MethodGet, path, "", nil)
	fresh.wantOK(t)
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(fresh.body)); err != nil || cfg.Width != 30 || cfg.Height != 15 {
		t.Fatalf("render after replacement: %dx%d %v", cfg.Width, cfg.Height, err)
	}

	// The one slot taken: a render waits for it.
	e.api.render.sem <- struct{}{}
	done := make(chan int, 1)
	go func() {
		req := httptest.NewRequest(http.MethodGet, "/storage/v1/render/image/public/public/c.jpg?width=20", nil)
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		done <- rec.Code
	}()
	select {
	case code := <-done:
		t.Fatalf("a render ran past the concurrency cap (%d)", code)
	case <-time.After(300 * time.Millisecond):
	}
	// One that gives up while waiting is a 499.
	gone, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	req := httptest.NewRequest(http.MethodGet, "/storage/v1/render/image/public/public/c.jpg?width=21", nil).WithContext(gone)
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != statusClientClosed {
		t.Errorf("a render abandoned while waiting answered %d: %s", rec.Code, rec.Body)
	}
	<-e.api.render.sem
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Fatalf("the waiting render answered %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting render never ran")
	}
}

// TestRenderCacheIsBounded: the cache holds at most its byte budget,
// dropping the least recently used, and never one entry over a quarter of it.
func TestRenderCacheIsBounded(t *testing.T) {
	t.Parallel()
	r := newRenderer(config.Storage{ImageCacheBytes: 100})
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		r.put(&rendered{key: k, body: make([]byte, 20)})
	}
	_ = r.get("a") // a is used again, so b is the oldest
	r.put(&rendered{key: "f", body: make([]byte, 20)})
	if r.get("b") != nil || r.get("a") == nil || r.get("f") == nil || r.size > 100 {
		t.Fatalf("after eviction: size %d, b kept %v, a kept %v", r.size, r.get("b") != nil, r.get("a") != nil)
	}
	r.put(&rendered{key: "big", body: make([]byte, 26)})
	if r.get("big") != nil {
		t.Fatal("an entry over a quarter of the budget was kept")
	}
}
