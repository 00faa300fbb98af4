package storage

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks go through the whole gateway handler (routing, JWT,
// RLS transactions, backend) on the file backend; docs/storage.md records
// their numbers beside the disk's own copy speed.

func benchUpload(b *testing.B, size int64) {
	e := setup(b, map[string]string{"STORAGE_FILE_SIZE_LIMIT": "2gb"}, policies)
	b.SetBytes(size)
	i := 0
	for b.Loop() {
		i++
		r := e.do(http.MethodPost, fmt.Sprintf("/object/public/u%d.bin", i), e.service,
			io.LimitReader(zeroReader{}, size), "Content-Type", "application/octet-stream")
		if r.status != http.StatusOK {
			b.Fatalf("%d %s", r.status, r.body)
		}
	}
}

func BenchmarkUpload1MB(b *testing.B)   { benchUpload(b, 1<<20) }
func BenchmarkUpload100MB(b *testing.B) { benchUpload(b, 100<<20) }

// discard is a ResponseWriter that throws the body away, so a download
// benchmark measures the gateway, not a buffer.
type discard struct {
	h    http.Header
	n    int64
	code int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(code int)        { d.code = code }
func (d *discard) Write(p []byte) (int, error) { d.n += int64(len(p)); return len(p), nil }

func benchDownload(b *testing.B, size int64) {
	e := setup(b, map[string]string{"STORAGE_FILE_SIZE_LIMIT": "2gb"}, policies)
	r := e.do(http.MethodPost, "/object/public/d.bin", e.service, io.LimitReader(zeroReader{}, size), "Content-Type", "application/octet-stream")
	if r.status != http.StatusOK {
		b.Fatalf("%d %s", r.status, r.body)
	}
	b.SetBytes(size)
	for b.Loop() {
		w := &discard{h: http.Header{}}
		e.h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/storage/v1/object/public/public/d.bin", nil))
		if w.n != size {
			b.Fatalf("got %d bytes, status %d", w.n, w.code)
		}
	}
}

func BenchmarkDownload1MB(b *testing.B)   { benchDownload(b, 1<<20) }
func BenchmarkDownload100MB(b *testing.B) { benchDownload(b, 100<<20) }

// benchDiskCopy is the baseline: write size bytes to a file, fsync it
// and rename it, as the file backend does, with nothing else around.
func benchDiskCopy(b *testing.B, size int64) {
	dir := b.TempDir()
	b.SetBytes(size)
	i := 0
	for b.Loop() {
		i++
		f, err := os.CreateTemp(dir, "copy-*")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(f, io.LimitReader(zeroReader{}, size)); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if err := os.Rename(f.Name(), filepath.Join(dir, fmt.Sprint(i))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiskCopy1MB(b *testing.B)   { benchDiskCopy(b, 1<<20) }
func BenchmarkDiskCopy100MB(b *testing.B) { benchDiskCopy(b, 100<<20) }

// BenchmarkList1000 lists a folder of 1,000 objects in one page (list v1)
// and the same with list v2 in pages of 100.
func BenchmarkList1000(b *testing.B) {
	e := setup(b, nil, policies)
	if _, err := e.db.Pool.Exec(b.Context(), `INSERT INTO storage.objects (bucket_id, name, metadata, version)
		SELECT 'public', 'folder/file-' || lpad(g::text, 4, '0'), '{"size": 1}', gen_random_uuid()::text
		  FROM generate_series(1, 1000) g`); err != nil {
		b.Fatal(err)
	}
	b.Run("v1", func(b *testing.B) {
		for b.Loop() {
			r := e.doJSON(http.MethodPost, "/object/list/public", e.service, map[string]any{"prefix": "folder", "limit": 1000})
			if r.status != http.StatusOK || strings.Count(string(r.body), `"name"`) != 1000 {
				b.Fatalf("%d", r.status)
			}
		}
	})
	b.Run("v2-pages-of-100", func(b *testing.B) {
		for b.Loop() {
			cursor := ""
			for page := 0; ; page++ {
				r := e.doJSON(http.MethodPost, "/object/list-v2/public", e.service, map[string]any{"prefix": "folder/", "limit": 100, "cursor": cursor})
				if r.status != http.StatusOK {
					b.Fatalf("%d %s", r.status, r.body)
				}
				if cursor = r.field(b, "nextCursor"); cursor == "" {
					break
				}
			}
		}
	})
}

// BenchmarkUpload1GBMemory uploads 1 GiB of unknown length and reports
// the peak heap while it streams: an upload must not be buffered.
func BenchmarkUpload1GBMemory(b *testing.B) {
	e := setup(b, map[string]string{"STORAGE_FILE_SIZE_LIMIT": "2gb"}, policies)
	const size = 1 << 30
	b.SetBytes(size)
	for b.Loop() {
		runtime.GC()
		var peak atomic.Uint64
		stop := make(chan struct{})
		go func() {
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		r := e.do(http.MethodPost, "/object/public/huge.bin", e.service, io.NopCloser(io.LimitReader(zeroReader{}, size)),
			"Content-Type", "application/octet-stream", "X-Upsert", "true")
		close(stop)
		if r.status != http.StatusOK {
			b.Fatalf("%d %s", r.status, r.body)
		}
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }
