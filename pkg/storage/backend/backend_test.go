package backend

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	// gofakes3 is a test-only dependency: an S3-compatible server in
	// process (in-memory backend), so the S3 backend is tested against a
	// real S3 wire implementation the test starts itself, with no Docker
	// and no network.
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// NewFakeS3 starts an S3-compatible server with one bucket and returns
// the options that reach it.
func newFakeS3(t testing.TB) S3Options {
	t.Helper()
	mem := s3mem.New()
	if err := mem.CreateBucket("labelbase"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(mem).Server())
	t.Cleanup(srv.Close)
	return S3Options{Endpoint: srv.URL, Region: "us-east-1", Bucket: "labelbase", AccessKey: "test", SecretKey: "test", PathStyle: true}
}

func backends(t *testing.T) map[string]Backend {
	t.Helper()
	f, err := NewFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewS3(context.Background(), newFakeS3(t))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Backend{"file": f, "s3": s}
}

const (
	v1 = "00000000-0000-4000-8000-000000000001"
	v2 = "00000000-0000-4000-8000-000000000002"
)

func TestBackendContract(t *testing.T) {
	for name, be := range backends(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			data := strings.Repeat("labelbase ", 1000)
			st, err := be.Stage(ctx, strings.NewReader(data), -1, v1)
			if err != nil {
				t.Fatal(err)
			}
			sum := md5.Sum([]byte(data))
			if st.Size() != int64(len(data)) || st.MD5() != hex.EncodeToString(sum[:]) {
				t.Fatalf("staged %d %s", st.Size(), st.MD5())
			}
			if err := st.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			st.Discard() // after Commit: a no-op
			b, err := be.Open(ctx, v1)
			if err != nil {
				t.Fatal(err)
			}
			if b.Size() != int64(len(data)) {
				t.Fatalf("size %d", b.Size())
			}
			if _, err := b.Seek(9990, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			tail, _ := io.ReadAll(b)
			b.Close()
			if string(tail) != "labelbase " {
				t.Fatalf("tail %q", tail)
			}
			if err := be.Copy(ctx, v1, v2); err != nil {
				t.Fatal(err)
			}
			var seen []string
			if err := be.Walk(ctx, time.Now().Add(time.Minute), func(v string) error { seen = append(seen, v); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(seen) != 2 {
				t.Fatalf("walk saw %v", seen)
			}
			if err := be.Walk(ctx, time.Now().Add(-time.Minute), func(v string) error { t.Fatalf("young blob %s walked", v); return nil }); err != nil {
				t.Fatal(err)
			}
			if err := be.Delete(ctx, v1, v2, v2); err != nil {
				t.Fatal(err)
			}
			if _, err := be.Open(ctx, v1); !errors.Is(err, ErrNotFound) {
				t.Fatalf("open deleted: %v", err)
			}
			if _, err := be.Open(ctx, "../../etc/passwd"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("open of a path: %v", err)
			}
			// Too large: refused, and nothing is left under the version.
			if _, err := be.Stage(ctx, strings.NewReader(data), 100, v1); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("over the limit: %v", err)
			}
			if _, err := be.Open(ctx, v1); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a refused upload is readable: %v", err)
			}
			// Discarded before commit: nothing readable.
			st, err = be.Stage(ctx, strings.NewReader("x"), -1, v2)
			if err != nil {
				t.Fatal(err)
			}
			st.Discard()
			if _, err := be.Open(ctx, v2); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a discarded upload is readable: %v", err)
			}
			if _, err := be.SweepTemp(ctx, time.Now()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestS3BadSettings(t *testing.T) {
	o := newFakeS3(t)
	o.Bucket = "missing"
	if _, err := NewS3(context.Background(), o); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
	if _, err := NewS3(context.Background(), S3Options{Endpoint: "http://", Bucket: "x"}); err == nil {
		t.Fatal("an endpoint without a host was accepted")
	}
}

// TestS3MultipartUpload streams a body of unknown length larger than one
// part, so the upload goes as a multipart upload.
func TestS3MultipartUpload(t *testing.T) {
	s, err := NewS3(context.Background(), newFakeS3(t))
	if err != nil {
		t.Fatal(err)
	}
	const size = partSize*2 + 12345
	r := io.LimitReader(zeros{}, size)
	st, err := s.Stage(context.Background(), struct{ io.Reader }{r}, -1, v1)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Open(context.Background(), v1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if st.Size() != size || b.Size() != size {
		t.Fatalf("staged %d, stored %d, want %d", st.Size(), b.Size(), size)
	}
	if _, err := s.Stage(context.Background(), io.LimitReader(zeros{}, size), partSize+1, v2); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the limit across parts: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
