package config

import (
	"strings"
	"testing"
)

func TestParseFileSize(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1048576, "20mb": 20_000_000, "1kb": 1000, "1.5GB": 1_500_000_000, "7 b": 7, "0": 0} {
		got, err := ParseFileSize(in)
		if err != nil || got != want {
			t.Errorf("ParseFileSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "-1", "1tb", "1e3", "99999999999999gb"} {
		if _, err := ParseFileSize(in); err == nil {
			t.Errorf("ParseFileSize(%q) accepted", in)
		}
	}
}

func TestStorageSettings(t *testing.T) {
	base := map[string]string{"DATABASE_URL": "postgres://u@localhost/db", "JWT_SECRET": strings.Repeat("s", 40)}
	load := func(extra map[string]string) (*Config, error) {
		return Load(func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return base[k]
		})
	}
	c, err := load(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Storage
	if s.Backend != "file" || s.FilePath != DefaultStorageFilePath || s.FileSizeLimit != 52428800 ||
		s.URLSigningKey != base["JWT_SECRET"] || s.UTF8Keys {
		t.Fatalf("defaults %+v", s)
	}
	for name, extra := range map[string]map[string]string{
		"backend":       {"STORAGE_BACKEND": "ftp"},
		"s3 incomplete": {"STORAGE_BACKEND": "s3"},
		"size":          {"STORAGE_FILE_SIZE_LIMIT": "big"},
		"short key":     {"STORAGE_URL_SIGNING_KEY": "short"},
		"utf8":          {"STORAGE_UTF8_KEYS": "maybe"},
		"concurrency":   {"STORAGE_IMAGE_CONCURRENCY": "0"},
		"upload expiry": {"STORAGE_UPLOAD_SIGNED_URL_EXPIRY": "-5"},
	} {
		if _, err := load(extra); err == nil {
			t.Errorf("%s: %v accepted", name, extra)
		}
	}
	c, err = load(map[string]string{"STORAGE_BACKEND": "S3", "STORAGE_S3_ENDPOINT": "http://minio:9000", "STORAGE_S3_BUCKET": "b",
		"STORAGE_FILE_SIZE_LIMIT": "5GB", "STORAGE_UTF8_KEYS": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Storage.Backend != "s3" || c.Storage.FileSizeLimit != 5_000_000_000 || !c.Storage.UTF8Keys {
		t.Fatalf("%+v", c.Storage)
	}
}
