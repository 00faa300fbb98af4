package backend

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"strings"
	"time"

	// minio-go is the S3 client: one module (plus a few small helpers)
	// that speaks to AWS S3, MinIO, R2 and the other S3-compatible stores,
	// and streams bodies of unknown length as multipart uploads. The AWS
	// SDK would bring about fifteen modules for the same calls.
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Options configure the S3-compatible backend.
type S3Options struct {
	// Endpoint is the store's URL (https://s3.amazonaws.com,
	// http://minio:9000); a bare host means https.
	Endpoint, Region, Bucket, AccessKey, SecretKey string
	// PathStyle addresses the bucket in the path (MinIO and most
	// self-hosted stores) rather than as a subdomain.
	PathStyle bool
}

// partSize is the multipart chunk of a streamed upload: the memory one
// upload holds at a time. minio-go's default for an unknown length would
// be ~550 MB.
const partSize = 16 << 20

// blobPrefix is where blobs live in the S3 bucket: v/<version>.
const blobPrefix = "v/"

// S3 keeps blobs in one bucket of an S3-compatible store, so several
// gateways on one database serve the same objects. An upload is one
// PutObject (multipart for large bodies), which S3 makes visible only
// once complete; a blob becomes an object when its row commits.
type S3 struct {
	c      *minio.Client
	bucket string
}

// NewS3 connects to the store and checks that the bucket exists.
func NewS3(ctx context.Context, o S3Options) (*S3, error) {
	ep := o.Endpoint
	if !strings.Contains(ep, "://") {
		ep = "https://" + ep
	}
	u, err := url.Parse(ep)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("backend: STORAGE_S3_ENDPOINT %q is not a URL", o.Endpoint)
	}
	lookup := minio.BucketLookupAuto
	if o.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(o.AccessKey, o.SecretKey, ""),
		Secure: u.Scheme == "https", Region: o.Region, BucketLookup: lookup})
	if err != nil {
		return nil, fmt.Errorf("backend: s3: %w", err)
	}
	ok, err := c.BucketExists(ctx, o.Bucket)
	if err != nil {
		return nil, fmt.Errorf("backend: s3: checking bucket %q: %w", o.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("backend: s3: bucket %q does not exist", o.Bucket)
	}
	return &S3{c: c, bucket: o.Bucket}, nil
}

// hashingReader computes the MD5 and length of what passes and refuses
// to pass more than limit bytes.
type hashingReader struct {
	r     io.Reader
	h     hash.Hash
	n     int64
	limit int64
	over  bool
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.n += int64(n)
	h.h.Write(p[:n])
	if h.limit >= 0 && h.n > h.limit {
		h.over = true
		return n, ErrTooLarge
	}
	return n, err
}

type s3Staged struct {
	s       *S3
	version string
	size    int64
	md5     string
	done    bool
}

func (s *s3Staged) Size() int64 { return s.size }
func (s *s3Staged) MD5() string { return s.md5 }

// Commit has nothing to do: the upload completed atomically in Stage.
func (s *s3Staged) Commit(context.Context) error { s.done = true; return nil }

func (s *s3Staged) Discard() {
	if !s.done {
		_ = s.s.Delete(context.Background(), s.version)
		s.done = true
	}
}

// Stage uploads r as the blob version.
func (s *S3) Stage(ctx context.Context, r io.Reader, limit int64, version string) (Staged, error) {
	if !validVersion(version) {
		return nil, fmt.Errorf("backend: bad version %q", version)
	}
	hr := &hashingReader{r: r, h: md5.New(), limit: limit}
	// Parts go with Content-MD5 and an unsigned payload rather than
	// minio-go's chunk-signed streaming: the MD5 guards each part as well,
	// it costs no second pass, and more S3-compatible servers accept it.
	_, err := s.c.PutObject(ctx, s.bucket, blobPrefix+version, hr, -1,
		minio.PutObjectOptions{PartSize: partSize, ContentType: "application/octet-stream",
			DisableContentSha256: true, SendContentMd5: true})
	if hr.over {
		_ = s.Delete(context.Background(), version)
		return nil, ErrTooLarge
	}
	if err != nil {
		return nil, fmt.Errorf("backend: s3: put: %w", err)
	}
	return &s3Staged{s: s, version: version, size: hr.n, md5: hex.EncodeToString(hr.h.Sum(nil))}, nil
}

type s3Blob struct {
	*minio.Object
	size int64
}

func (b s3Blob) Size() int64 { return b.size }

// Open returns a blob; reads and seeks become ranged GETs.
func (s *S3) Open(ctx context.Context, version string) (Blob, error) {
	if !validVersion(version) {
		return nil, ErrNotFound
	}
	obj, err := s.c.GetObject(ctx, s.bucket, blobPrefix+version, minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("backend: s3: get: %w", err)
	}
	st, err := obj.Stat()
	if err != nil {
		obj.Close()
		if minio.ToErrorResponse(err).Code == "NoSuchKey" {
			return nil, ErrNotFound
		}
		return nil, fmt.Errorf("backend: s3: stat: %w", err)
	}
	return s3Blob{Object: obj, size: st.Size}, nil
}

// Copy is a server-side copy (CopyObject, up to 5 GiB a blob).
func (s *S3) Copy(ctx context.Context, src, dst string) error {
	if !validVersion(src) || !validVersion(dst) {
		return ErrNotFound
	}
	_, err := s.c.CopyObject(ctx, minio.CopyDestOptions{Bucket: s.bucket, Object: blobPrefix + dst},
		minio.CopySrcOptions{Bucket: s.bucket, Object: blobPrefix + src})
	if minio.ToErrorResponse(err).Code == "NoSuchKey" {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("backend: s3: copy: %w", err)
	}
	return nil
}

// Delete removes blobs; S3 answers a missing key with success.
func (s *S3) Delete(ctx context.Context, versions ...string) error {
	var errs []error
	for _, v := range versions {
		if !validVersion(v) {
			continue
		}
		if err := s.c.RemoveObject(ctx, s.bucket, blobPrefix+v, minio.RemoveObjectOptions{}); err != nil &&
			minio.ToErrorResponse(err).Code != "NoSuchKey" {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Walk lists the blobs last modified before olderThan.
func (s *S3) Walk(ctx context.Context, olderThan time.Time, fn func(version string) error) error {
	for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: blobPrefix, Recursive: true}) {
		if o.Err != nil {
			return fmt.Errorf("backend: s3: list: %w", o.Err)
		}
		if o.LastModified.Before(olderThan) {
			if err := fn(strings.TrimPrefix(o.Key, blobPrefix)); err != nil {
				return err
			}
		}
	}
	return nil
}

// SweepTemp aborts multipart uploads a crash left unfinished (they hold
// storage until aborted).
func (s *S3) SweepTemp(ctx context.Context, olderThan time.Time) (int, error) {
	n := 0
	for u := range s.c.ListIncompleteUploads(ctx, s.bucket, blobPrefix, true) {
		if u.Err != nil {
			return n, fmt.Errorf("backend: s3: list uploads: %w", u.Err)
		}
		if u.Initiated.Before(olderThan) {
			if err := s.c.RemoveIncompleteUpload(ctx, s.bucket, u.Key); err == nil {
				n++
			}
		}
	}
	return n, nil
}
