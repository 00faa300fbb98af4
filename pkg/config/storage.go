package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Storage is the /storage/v1 group of settings. It is parsed by
// loadStorage, separately from the main table, so the lead can fold it
// into the declaration table when config.go is restructured.
type Storage struct {
	// Backend is "file" (bytes under FilePath) or "s3".
	Backend string
	// FilePath is the file backend's root directory.
	FilePath string
	// S3 settings, used when Backend is "s3".
	S3Endpoint       string
	S3Region         string
	S3Bucket         string
	S3AccessKey      string
	S3SecretKey      string
	S3ForcePathStyle bool
	// FileSizeLimit is the largest object any bucket accepts, in bytes; a
	// bucket's own file_size_limit can only lower it.
	FileSizeLimit int64
	// URLSigningKey signs the HS256 tokens of signed URLs; rotating it
	// revokes every signed URL handed out. Defaults to JWT_SECRET.
	URLSigningKey string
	// UploadURLExpiry is how long a signed upload URL stays valid.
	UploadURLExpiry time.Duration
	// UTF8Keys accepts any UTF-8 object key instead of Supabase's ASCII set.
	UTF8Keys bool
	// ImageMaxPixels caps the source resolution the renderer decodes.
	ImageMaxPixels int
	// ImageConcurrency caps the renders running at once.
	ImageConcurrency int
	// ImageCacheBytes bounds the in-memory cache of rendered images.
	ImageCacheBytes int64
}

// DefaultStorageFilePath is where `labelbase serve` keeps objects unless
// STORAGE_FILE_PATH says otherwise (relative to the working directory);
// `labelbase dev` uses the storage folder of its data directory.
const DefaultStorageFilePath = "data/storage"

func loadStorage(p *parser, jwtSecret string) Storage {
	s := Storage{
		Backend:          strings.ToLower(p.str("STORAGE_BACKEND", "file")),
		FilePath:         p.str("STORAGE_FILE_PATH", DefaultStorageFilePath),
		S3Endpoint:       p.str("STORAGE_S3_ENDPOINT", ""),
		S3Region:         p.str("STORAGE_S3_REGION", "us-east-1"),
		S3Bucket:         p.str("STORAGE_S3_BUCKET", ""),
		S3AccessKey:      p.secret("STORAGE_S3_ACCESS_KEY", ""),
		S3SecretKey:      p.secret("STORAGE_S3_SECRET_KEY", ""),
		S3ForcePathStyle: p.boolean("STORAGE_S3_FORCE_PATH_STYLE", true),
		URLSigningKey:    p.secret("STORAGE_URL_SIGNING_KEY", jwtSecret),
		UploadURLExpiry:  p.seconds("STORAGE_UPLOAD_SIGNED_URL_EXPIRY", 60*time.Second),
		UTF8Keys:         p.boolean("STORAGE_UTF8_KEYS", false),
		ImageMaxPixels:   p.integer("STORAGE_IMAGE_MAX_PIXELS", 25_000_000),
		ImageConcurrency: p.integer("STORAGE_IMAGE_CONCURRENCY", 2),
		ImageCacheBytes:  int64(p.integer("STORAGE_IMAGE_CACHE_BYTES", 64<<20)),
	}
	limit, err := ParseFileSize(p.str("STORAGE_FILE_SIZE_LIMIT", "52428800"))
	if err != nil {
		p.fail("STORAGE_FILE_SIZE_LIMIT: %v", err)
	}
	s.FileSizeLimit = limit
	switch s.Backend {
	case "file":
		if s.FilePath == "" {
			p.fail("STORAGE_FILE_PATH must not be empty")
		}
	case "s3":
		if s.S3Endpoint == "" || s.S3Bucket == "" {
			p.fail("STORAGE_BACKEND=s3 needs STORAGE_S3_ENDPOINT and STORAGE_S3_BUCKET")
		}
	default:
		p.fail("STORAGE_BACKEND must be file or s3, got %q", s.Backend)
	}
	if s.URLSigningKey != "" && len(s.URLSigningKey) < 32 {
		p.fail("STORAGE_URL_SIGNING_KEY must be at least 32 characters")
	}
	if s.UploadURLExpiry <= 0 {
		p.fail("STORAGE_UPLOAD_SIGNED_URL_EXPIRY must be positive")
	}
	if s.ImageMaxPixels < 1 || s.ImageConcurrency < 1 {
		p.fail("STORAGE_IMAGE_MAX_PIXELS and STORAGE_IMAGE_CONCURRENCY must be at least 1")
	}
	return s
}

var fileSizeRE = regexp.MustCompile(`(?i)^(\d+(?:\.\d+)?)\s*(gb|mb|kb|b)?$`)

// ParseFileSize reads a size as Supabase writes it: a number of bytes, or
// a number with a decimal unit (b, kb, mb, gb; "20mb" is 20,000,000).
func ParseFileSize(s string) (int64, error) {
	m := fileSizeRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("%q is not a size such as 1048576, 500kb or 50MB", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %v", s, err)
	}
	mult := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9}[strings.ToLower(m[2])]
	v := n * mult
	if v > 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v), nil
}
