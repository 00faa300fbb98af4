package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// failingReader yields n bytes, then fails, as a client whose connection
// drops mid-upload.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset")
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

func TestInterruptedUploadLeavesNothing(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	r := e.do(http.MethodPost, "/object/public/broken.bin", e.service, &failingReader{n: 100_000},
		"Content-Type", "application/octet-stream")
	r.wantErr(t, "400", "could not be read")
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 0 {
		t.Fatalf("%d rows after an interrupted upload", n)
	}
	if n := e.blobs(); n != 0 {
		t.Fatalf("%d blobs after an interrupted upload", n)
	}
	tmp, _ := os.ReadDir(filepath.Join(e.fileBE.Root(), ".tmp"))
	if len(tmp) != 0 {
		t.Fatalf("%d temporary files left", len(tmp))
	}
}

// TestCrashBetweenFileAndRow plays what a crash leaves at each step: a
// temporary upload (crash while streaming) and a blob in place whose row
// never committed (crash between rename and COMMIT). Neither is served,
// and the sweep removes both once they are old enough.
func TestCrashBetweenFileAndRow(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	ctx := context.Background()
	e.put(e.service, "public", "kept.txt", "kept", false).wantOK(t)

	st, err := e.be.Stage(ctx, strings.NewReader("orphan"), -1, newUUID())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.be.Stage(ctx, strings.NewReader("half an upload"), -1, newUUID()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.fileBE.Root(), ".tmp", "upload-crashed"), []byte("partial"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := e.blobs(); n != 2 {
		t.Fatalf("%d blobs before the sweep", n)
	}
	// Young leftovers are not touched: a write may be about to commit.
	if temps, blobs, err := e.api.Sweep(ctx); err != nil || temps+blobs != 0 {
		t.Fatalf("sweep of young files: %d %d %v", temps, blobs, err)
	}
	e.api.now = func() time.Time { return time.Now().Add(2 * SweepAge) }
	temps, blobs, err := e.api.Sweep(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if temps != 2 || blobs != 1 {
		t.Fatalf("swept %d temporary files and %d blobs, want 2 and 1", temps, blobs)
	}
	if d := e.do(http.MethodGet, "/object/public/public/kept.txt", "", nil); string(d.body) != "kept" {
		t.Fatalf("the live object suffered: %d %q", d.status, d.body)
	}
}

// TestConcurrentUploadsOfOneKey: of many plain uploads of one key exactly
// one wins and the rest get 409; many upserts all succeed, the row names
// one of them, and exactly one blob remains.
func TestConcurrentUploadsOfOneKey(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	const n = 8
	statuses := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := e.put(e.service, "public", "race.txt", fmt.Sprintf("writer %d", i), false)
			if r.status == http.StatusOK {
				statuses[i] = "ok"
			} else {
				statuses[i] = r.field(t, "statusCode")
			}
		}()
	}
	wg.Wait()
	if got := strings.Count(strings.Join(statuses, ","), "ok"); got != 1 {
		t.Fatalf("plain uploads: %v, want exactly one ok", statuses)
	}
	for _, s := range statuses {
		if s != "ok" && s != "409" {
			t.Fatalf("plain uploads: %v", statuses)
		}
	}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.put(e.service, "public", "race.txt", fmt.Sprintf("upsert %d", i), true).wantOK(t)
		}()
	}
	wg.Wait()
	e.api.Wait()
	d := e.do(http.MethodGet, "/object/public/public/race.txt", "", nil)
	if !strings.HasPrefix(string(d.body), "upsert ") {
		t.Fatalf("after upserts: %q", d.body)
	}
	if n := e.blobs(); n != 1 {
		t.Fatalf("%d blobs for one object", n)
	}
}

func TestRangeAndConditionalReads(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	e.put(e.service, "public", "r.txt", "0123456789", false).wantOK(t)
	full := e.do(http.MethodGet, "/object/public/public/r.txt", "", nil)
	etag := full.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || full.header.Get("Accept-Ranges") != "bytes" {
		t.Fatalf("headers %v", full.header)
	}
	r := e.do(http.MethodGet, "/object/public/public/r.txt", "", nil, "Range", "bytes=3-5")
	if r.status != http.StatusPartialContent || string(r.body) != "345" || r.header.Get("Content-Range") != "bytes 3-5/10" {
		t.Fatalf("range: %d %q %v", r.status, r.body, r.header)
	}
	r = e.do(http.MethodGet, "/object/public/public/r.txt", "", nil, "Range", "bytes=50-60")
	if r.status != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("unsatisfiable range: %d", r.status)
	}
	r = e.do(http.MethodGet, "/object/public/public/r.txt", "", nil, "If-None-Match", etag)
	if r.status != http.StatusNotModified || len(r.body) != 0 {
		t.Fatalf("If-None-Match: %d %q", r.status, r.body)
	}
	r = e.do(http.MethodGet, "/object/public/public/r.txt", "", nil, "If-None-Match", `"other"`)
	r.wantOK(t)
	r = e.do(http.MethodHead, "/object/public/public/r.txt", "", nil)
	if r.status != http.StatusOK || r.header.Get("Content-Length") != "10" || len(r.body) != 0 {
		t.Fatalf("HEAD: %d %v %q", r.status, r.header, r.body)
	}
	// A replaced object has a new ETag, so a cached copy revalidates.
	e.put(e.service, "public", "r.txt", "abcdefghij", true).wantOK(t)
	r = e.do(http.MethodGet, "/object/public/public/r.txt", "", nil, "If-None-Match", etag)
	if r.status != http.StatusOK || string(r.body) != "abcdefghij" {
		t.Fatalf("after replace: %d %q", r.status, r.body)
	}
}

func TestSizeLimitCountsStreamedBodies(t *testing.T) {
	t.Parallel()
	e := setup(t, map[string]string{"STORAGE_FILE_SIZE_LIMIT": "1kb"}, policies)
	// Content-Length known: refused before reading.
	e.put(e.service, "public", "big.bin", strings.Repeat("x", 1001), false).wantErr(t, "413", "maximum allowed size")
	// Unknown length (chunked): counted while streaming.
	body := io.MultiReader(strings.NewReader(strings.Repeat("y", 600)), strings.NewReader(strings.Repeat("z", 600)))
	r := e.do(http.MethodPost, "/object/public/chunked.bin", e.service, io.NopCloser(body), "Content-Type", "application/octet-stream")
	r.wantErr(t, "413", "maximum allowed size")
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 0 {
		t.Fatalf("%d rows", n)
	}
	e.put(e.service, "public", "ok.bin", strings.Repeat("x", 1000), false).wantOK(t)
}
