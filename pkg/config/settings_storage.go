package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Storage is the /storage/v1 group of settings (storageGroup).
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

// storageGroup: /storage/v1.
var storageGroup = group{
	title: "Storage",
	doc:   "Files at `/storage/v1` (see [storage.md](storage.md)).",
	settings: []setting{
		text("STORAGE_BACKEND", "file", func(c *Config) *string { return &c.Storage.Backend },
			"Where object bytes live: `file` (a directory) or `s3` (an S3-compatible service; several gateways must use it)."),
		text("STORAGE_FILE_PATH", DefaultStorageFilePath, func(c *Config) *string { return &c.Storage.FilePath },
			"The file backend's root, relative to the working directory (`dev`: the storage folder of its data directory)."),
		text("STORAGE_S3_ENDPOINT", "", func(c *Config) *string { return &c.Storage.S3Endpoint },
			"The S3 service's URL (required with `STORAGE_BACKEND=s3`)."),
		text("STORAGE_S3_REGION", "us-east-1", func(c *Config) *string { return &c.Storage.S3Region },
			"The S3 region."),
		text("STORAGE_S3_BUCKET", "", func(c *Config) *string { return &c.Storage.S3Bucket },
			"The one S3 bucket every object goes to (required with `s3`; it must exist)."),
		secret("STORAGE_S3_ACCESS_KEY", func(c *Config) *string { return &c.Storage.S3AccessKey },
			"S3 access key."),
		secret("STORAGE_S3_SECRET_KEY", func(c *Config) *string { return &c.Storage.S3SecretKey },
			"S3 secret key."),
		boolean("STORAGE_S3_FORCE_PATH_STYLE", true, func(c *Config) *bool { return &c.Storage.S3ForcePathStyle },
			"Name the bucket in the path rather than as a subdomain (MinIO and most self-hosted services need it)."),
		fileSize("STORAGE_FILE_SIZE_LIMIT", 52428800, "52428800", func(c *Config) *int64 { return &c.Storage.FileSizeLimit },
			"The largest object any bucket accepts: bytes, or Supabase's units (`50mb` = 50,000,000); a bucket's own "+
				"`file_size_limit` can only lower it."),
		secret("STORAGE_URL_SIGNING_KEY", func(c *Config) *string { return &c.Storage.URLSigningKey },
			"Signs the HS256 tokens of signed URLs; rotating it revokes every signed URL handed out.").defaultDoc("`JWT_SECRET`"),
		seconds("STORAGE_UPLOAD_SIGNED_URL_EXPIRY", 60*time.Second, func(c *Config) *time.Duration { return &c.Storage.UploadURLExpiry },
			"Seconds a signed upload URL stays valid."),
		boolean("STORAGE_UTF8_KEYS", false, func(c *Config) *bool { return &c.Storage.UTF8Keys },
			"Accept any UTF-8 object key instead of Supabase's ASCII set."),
		integer("STORAGE_IMAGE_MAX_PIXELS", 25_000_000, func(c *Config) *int { return &c.Storage.ImageMaxPixels },
			"The largest source image (width × height) a transformation decodes."),
		integer("STORAGE_IMAGE_CONCURRENCY", 2, func(c *Config) *int { return &c.Storage.ImageConcurrency },
			"Image transformations running at once; more wait."),
		fileSize("STORAGE_IMAGE_CACHE_BYTES", 64<<20, "67108864", func(c *Config) *int64 { return &c.Storage.ImageCacheBytes },
			"Memory for rendered images (bytes or units)."),
	},
	validate: func(c *Config, p *parser) {
		s := &c.Storage
		s.Backend = strings.ToLower(s.Backend)
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
	},
	derive: func(c *Config) {
		if c.Storage.URLSigningKey == "" {
			c.Storage.URLSigningKey = c.JWTSecret
		}
	},
}

// fileSize is a size in bytes or in Supabase's units (ParseFileSize).
func fileSize(name string, def int64, shown string, at func(*Config) *int64, doc string) setting {
	return decl(name, def, shown, at, func(p *parser, name string, def int64) int64 {
		raw := p.str(name, "")
		if raw == "" {
			return def
		}
		v, err := ParseFileSize(raw)
		if err != nil {
			p.fail("%s: %v", name, err)
		}
		return v
	}, doc)
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
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	mult := map[string]float64{"": 1, "b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9}[strings.ToLower(m[2])]
	v := n * mult
	if v > 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v), nil
}
