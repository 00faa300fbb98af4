package backend

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// File keeps blobs under a directory: <root>/b-<bucket>/<v[:2]>/<v>, and
// uploads in progress under <root>/.tmp. Temporary files are renamed into
// place (atomic on one file system), so a reader never sees a partial
// blob. Names come from the bucket id (escaped, prefixed so "." and ".."
// stay ordinary names) and the version, a UUID the gateway generated:
// nothing a client sends becomes a path segment unescaped.
type File struct {
	root string
}

// NewFile returns the backend rooted at root. Directories are created on
// the first upload, so a gateway that stores nothing leaves nothing.
func NewFile(root string) (*File, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	return &File{root: abs}, nil
}

// Root is the directory the backend writes to.
func (f *File) Root() string { return f.root }

func bucketDir(bucket string) string { return "b-" + url.PathEscape(bucket) }

func (f *File) path(bucket, version string) (string, error) {
	if len(version) < 3 || strings.ContainsAny(version, `/\.`) {
		return "", fmt.Errorf("backend: bad version %q", version)
	}
	return filepath.Join(f.root, bucketDir(bucket), version[:2], version), nil
}

type fileStaged struct {
	tmp  string
	size int64
	md5  string
	f    *File
	done bool
}

func (s *fileStaged) Size() int64 { return s.size }
func (s *fileStaged) MD5() string { return s.md5 }

func (s *fileStaged) Commit(_ context.Context, bucket, version string) error {
	dst, err := s.f.path(bucket, version)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	if err := os.Rename(s.tmp, dst); err != nil {
		return fmt.Errorf("backend: commit: %w", err)
	}
	s.done = true
	return nil
}

func (s *fileStaged) Discard() {
	if !s.done {
		_ = os.Remove(s.tmp)
		s.done = true
	}
}

// limitedWriter counts while copying and fails past the limit, so an
// upload of unknown length is refused as soon as it is too large.
type limitedWriter struct {
	w     io.Writer
	n     int64
	limit int64
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.limit >= 0 && l.n+int64(len(p)) > l.limit {
		return 0, ErrTooLarge
	}
	n, err := l.w.Write(p)
	l.n += int64(n)
	return n, err
}

// Stage writes r to a temporary file, fsyncs it and computes its MD5 on
// the way; limit < 0 means no limit.
func (f *File) Stage(_ context.Context, r io.Reader, limit int64) (Staged, error) {
	if err := os.MkdirAll(filepath.Join(f.root, ".tmp"), 0o750); err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Join(f.root, ".tmp"), "upload-*")
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	h := md5.New()
	lw := &limitedWriter{w: io.MultiWriter(tmp, h), limit: limit}
	_, err = io.Copy(lw, r)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		if errors.Is(err, ErrTooLarge) {
			return nil, ErrTooLarge
		}
		return nil, fmt.Errorf("backend: stage: %w", err)
	}
	return &fileStaged{tmp: tmp.Name(), size: lw.n, md5: hex.EncodeToString(h.Sum(nil)), f: f}, nil
}

type fileBlob struct {
	*os.File
	size int64
}

func (b fileBlob) Size() int64 { return b.size }

// Open opens a committed blob.
func (f *File) Open(_ context.Context, bucket, version string) (Blob, error) {
	p, err := f.path(bucket, version)
	if err != nil {
		return nil, err
	}
	fh, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("backend: %w", err)
	}
	return fileBlob{File: fh, size: st.Size()}, nil
}

// Copy duplicates a blob through a temporary file, so the new version
// appears whole.
func (f *File) Copy(ctx context.Context, srcBucket, srcVersion, dstBucket, dstVersion string) error {
	src, err := f.Open(ctx, srcBucket, srcVersion)
	if err != nil {
		return err
	}
	defer src.Close()
	st, err := f.Stage(ctx, src, -1)
	if err != nil {
		return err
	}
	if err := st.Commit(ctx, dstBucket, dstVersion); err != nil {
		st.Discard()
		return err
	}
	return nil
}

// Delete removes blobs, ignoring missing ones.
func (f *File) Delete(_ context.Context, bucket string, versions ...string) error {
	var errs []error
	for _, v := range versions {
		p, err := f.path(bucket, v)
		if err != nil {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Walk visits every blob modified before olderThan.
func (f *File) Walk(ctx context.Context, olderThan time.Time, fn func(bucket, version string) error) error {
	dirs, err := os.ReadDir(f.root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	for _, d := range dirs {
		name, ok := strings.CutPrefix(d.Name(), "b-")
		if !d.IsDir() || !ok {
			continue
		}
		bucket, err := url.PathUnescape(name)
		if err != nil {
			continue
		}
		err = filepath.WalkDir(filepath.Join(f.root, d.Name()), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			info, err := e.Info()
			if err != nil || !info.ModTime().Before(olderThan) {
				return nil
			}
			return fn(bucket, e.Name())
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// SweepTemp removes uploads a crash left in .tmp.
func (f *File) SweepTemp(_ context.Context, olderThan time.Time) (int, error) {
	dir := filepath.Join(f.root, ".tmp")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("backend: %w", err)
	}
	n := 0
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(olderThan) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			n++
		}
	}
	return n, nil
}
