package storage

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

// fakeS3 starts an in-process S3-compatible server (gofakes3, a test-only
// dependency) with one bucket and returns the settings that reach it.
func fakeS3(t testing.TB) map[string]string {
	t.Helper()
	mem := s3mem.New()
	if err := mem.CreateBucket("objects"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(mem).Server())
	t.Cleanup(srv.Close)
	return map[string]string{"STORAGE_BACKEND": "s3", "STORAGE_S3_ENDPOINT": srv.URL, "STORAGE_S3_BUCKET": "objects",
		"STORAGE_S3_ACCESS_KEY": "test", "STORAGE_S3_SECRET_KEY": "test", "STORAGE_S3_FORCE_PATH_STYLE": "true"}
}

// TestTwoGatewaysShareS3: two gateways on one database and one S3 bucket
// serve the same objects: what one stores, moves or deletes, the other
// sees at once.
func TestTwoGatewaysShareS3(t *testing.T) {
	t.Parallel()
	e := setup(t, fakeS3(t), policies)
	// The second gateway: its own pool, backend client and handler.
	be2, err := NewBackend(context.Background(), e.cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	api2, err := New(Deps{Config: e.cfg, Pool: e.api.pool, Verifier: token.NewVerifier(testSecret, "", nil), Backend: be2,
		Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h2 := server.New(server.Deps{Config: e.cfg, Log: slog.New(slog.DiscardHandler), Storage: api2.Register})
	get2 := func(path string) resp {
		req := httptest.NewRequest(http.MethodGet, "/storage/v1"+path, nil)
		rec := httptest.NewRecorder()
		h2.ServeHTTP(rec, req)
		return resp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	}

	e.put(e.service, "public", "shared.txt", "from gateway one", false).wantOK(t)
	if r := get2("/object/public/public/shared.txt"); r.status != http.StatusOK || string(r.body) != "from gateway one" {
		t.Fatalf("gateway two reads: %d %q", r.status, r.body)
	}
	r := get2("/object/public/public/shared.txt")
	if r2 := e.do(http.MethodGet, "/object/public/public/shared.txt", "", nil, "Range", "bytes=5-11"); string(r2.body) != "gateway" ||
		r.header.Get("ETag") != r2.header.Get("ETag") {
		t.Fatalf("range over S3: %q, ETags %q %q", r2.body, r.header.Get("ETag"), r2.header.Get("ETag"))
	}
	e.put(e.service, "public", "shared.txt", "replaced", true).wantOK(t)
	if r := get2("/object/public/public/shared.txt"); string(r.body) != "replaced" {
		t.Fatalf("after replace: %q", r.body)
	}
	e.doJSON(http.MethodPost, "/object/copy", e.service, map[string]any{"bucketId": "public", "sourceKey": "shared.txt",
		"destinationKey": e.userA + "/copy.txt", "destinationBucket": "private"}).wantOK(t)
	e.doJSON(http.MethodDelete, "/object/public", e.service, map[string]any{"prefixes": []string{"shared.txt"}}).wantOK(t)
	if r := get2("/object/public/public/shared.txt"); r.status != http.StatusBadRequest {
		t.Fatalf("deleted object still served: %d", r.status)
	}
	if d := e.do(http.MethodGet, "/object/private/"+e.userA+"/copy.txt", e.tokA, nil); string(d.body) != "replaced" {
		t.Fatalf("copy over S3: %d %q", d.status, d.body)
	}
	if n := e.blobs(); n != 1 {
		t.Fatalf("%d blobs in S3, want 1", n)
	}
	e.put(e.service, "public", "big.bin", strings.Repeat("b", 100_000), false).wantOK(t)
	if temps, blobs, err := e.api.Sweep(context.Background()); err != nil || temps+blobs != 0 {
		t.Fatalf("sweep over S3: %d %d %v", temps, blobs, err)
	}
}
