// Package backend keeps the bytes of storage objects. The database row
// (storage.objects) is the truth about which objects exist; a backend only
// holds immutable blobs named by bucket and version, so replacing an
// object writes a new version and a move never touches the bytes.
package backend

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is returned for a blob the backend does not hold.
var ErrNotFound = errors.New("backend: blob not found")

// Blob is a stored version, opened for reading.
type Blob interface {
	io.ReadSeekCloser
	// Size is the blob's length in bytes.
	Size() int64
}

// Staged is an upload written to temporary space, not yet visible under
// its final name.
type Staged interface {
	// Size, MD5 are the staged bytes' length and hex MD5.
	Size() int64
	MD5() string
	// Commit makes the bytes the blob (bucket, version). It must be
	// atomic: a reader sees the whole blob or nothing.
	Commit(ctx context.Context, bucket, version string) error
	// Discard removes the temporary bytes; after Commit it is a no-op.
	Discard()
}

// Backend is where object bytes live.
type Backend interface {
	// Stage streams r to temporary space, refusing more than limit bytes
	// with ErrTooLarge.
	Stage(ctx context.Context, r io.Reader, limit int64) (Staged, error)
	// Open returns the blob (bucket, version).
	Open(ctx context.Context, bucket, version string) (Blob, error)
	// Copy duplicates a blob under a new version.
	Copy(ctx context.Context, srcBucket, srcVersion, dstBucket, dstVersion string) error
	// Delete removes blobs; missing ones are not an error.
	Delete(ctx context.Context, bucket string, versions ...string) error
	// Walk lists the stored blobs last modified before olderThan, for the
	// sweep that removes those no row references.
	Walk(ctx context.Context, olderThan time.Time, fn func(bucket, version string) error) error
	// SweepTemp removes temporary uploads older than olderThan, left by a
	// crash mid-upload.
	SweepTemp(ctx context.Context, olderThan time.Time) (int, error)
}

// ErrTooLarge is returned by Stage when the body exceeds its limit.
var ErrTooLarge = errors.New("backend: body exceeds the size limit")
