package backend

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// File keeps blobs under a directory: <root>/v/<v[:2]>/<v>, and uploads in
// progress under <root>/.tmp. A temporary file is fsynced and renamed into
// place (atomic on one file system), so a reader never sees a partial
// blob. Nothing a client sends becomes a path: names are versions.
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

func (f *File) path(version string) (string, error) {
	if !validVersion(version) {
		return "", fmt.Errorf("backend: bad version %q", version)
	}
	return filepath.Join(f.root, "v", version[:2], version), nil
}

type fileStaged struct {
	tmp, dst string
	size     int64
	md5      string
	done     bool
}

func (s *fileStaged) Size() int64 { return s.size }
func (s *fileStaged) MD5() string { return s.md5 }

func (s *fileStaged) Commit(context.Context) error {
	if err := os.MkdirAll(filepath.Dir(s.dst), 0o750); err != nil {
		return fmt.Errorf("backend: %w", err)
	}
	if err := os.Rename(s.tmp, s.dst); err != nil {
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

// Stage writes r to a temporary file, fsyncs it and computes its MD5 on
// the way.
func (f *File) Stage(_ context.Context, r io.Reader, limit int64, version string) (Staged, error) {
	dst, err := f.path(version)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(f.root, ".tmp"), 0o750); err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Join(f.root, ".tmp"), "upload-*")
	if err != nil {
		return nil, fmt.Errorf("backend: %w", err)
	}
	h := md5.New()
	lw := &limitedWriter{w: io.MultiWriter(tmp, h), limit: limit}
	// A 256 KiB buffer: 8x fewer write calls than io.Copy's 32 KiB.
	_, err = io.CopyBuffer(lw, r, make([]byte, 256<<10))
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
	return &fileStaged{tmp: tmp.Name(), dst: dst, size: lw.n, md5: hex.EncodeToString(h.Sum(nil))}, nil
}

type fileBlob struct {
	*os.File
	size int64
}

func (b fileBlob) Size() int64 { return b.size }

// Open opens a committed blob.
func (f *File) Open(_ context.Context, version string) (Blob, error) {
	p, err := f.path(version)
	if err != nil {
		return nil, ErrNotFound
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
func (f *File) Copy(ctx context.Context, src, dst string) error {
	in, err := f.Open(ctx, src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := f.Stage(ctx, in, -1, dst)
	if err != nil {
		return err
	}
	if err := st.Commit(ctx); err != nil {
		st.Discard()
		return err
	}
	return nil
}

// Delete removes blobs, ignoring missing ones.
func (f *File) Delete(_ context.Context, versions ...string) error {
	var errs []error
	for _, v := range versions {
		p, err := f.path(v)
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
func (f *File) Walk(ctx context.Context, olderThan time.Time, fn func(version string) error) error {
	err := filepath.WalkDir(filepath.Join(f.root, "v"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(olderThan) {
			return nil //nolint:nilerr // a file gone mid-walk (another sweep took it) or too young is skipped
		}
		return fn(e.Name())
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
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
