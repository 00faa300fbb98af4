// Package backend keeps the bytes of storage objects. The database row
// (storage.objects) is the truth about which objects exist; a backend only
// holds immutable blobs named by version, a UUID the gateway makes for
// every write. Replacing an object writes a new version, and a move (even
// to another bucket) never touches the bytes.
package backend

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned for a blob the backend does not hold.
var ErrNotFound = errors.New("backend: blob not found")

// ErrTooLarge is returned by Stage when the body exceeds its limit.
var ErrTooLarge = errors.New("backend: body exceeds the size limit")

// Blob is a stored version, opened for reading.
type Blob interface {
	io.ReadSeekCloser
	// Size is the blob's length in bytes.
	Size() int64
}

// Staged is an upload whose bytes are stored but not yet committed.
type Staged interface {
	// Size and MD5 are the staged bytes' length and hex MD5.
	Size() int64
	MD5() string
	// Commit makes the bytes readable as their version. It is atomic: a
	// reader sees the whole blob or nothing.
	Commit(ctx context.Context) error
	// Discard removes the bytes unless they were committed.
	Discard()
}

// Backend is where object bytes live.
type Backend interface {
	// Stage streams r into the backend as version, refusing more than
	// limit bytes (limit < 0: no limit) with ErrTooLarge.
	Stage(ctx context.Context, r io.Reader, limit int64, version string) (Staged, error)
	// Open returns a committed blob.
	Open(ctx context.Context, version string) (Blob, error)
	// Copy duplicates a blob under a new version.
	Copy(ctx context.Context, src, dst string) error
	// Delete removes blobs; missing ones are not an error.
	Delete(ctx context.Context, versions ...string) error
	// Walk lists the committed blobs last modified before olderThan, for
	// the sweep that removes those no row references.
	Walk(ctx context.Context, olderThan time.Time, fn func(version string) error) error
	// SweepTemp removes uploads older than olderThan that never finished
	// (a crash mid-upload), returning how many.
	SweepTemp(ctx context.Context, olderThan time.Time) (int, error)
}

// validVersion keeps a version from naming anything but a blob: versions
// are the gateway's UUIDs, so only hex digits and dashes pass.
func validVersion(v string) bool {
	if len(v) < 8 || len(v) > 64 {
		return false
	}
	for _, r := range v {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F' || r == '-') {
			return false
		}
	}
	return true
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
