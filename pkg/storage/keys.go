package storage

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Supabase's character sets for object keys and bucket names
// (supabase/storage src/storage/limits.ts): ASCII only.
var (
	keyRE    = regexp.MustCompile(`^[A-Za-z0-9_/!.*'() &$=@;:+,?-]*$`)
	bucketRE = regexp.MustCompile(`^[A-Za-z0-9_!.*'() &$=@;:+,?-]{1,100}$`)
)

// maxKeyBytes bounds a key, as S3 does (1024 bytes).
const maxKeyBytes = 1024

// validKey says whether key may name an object. With utf8 set (the
// STORAGE_UTF8_KEYS switch) any valid UTF-8 without control characters is
// accepted, so "über.pdf" works; otherwise Supabase's ASCII set applies.
func validKey(key string, utf8Keys bool) bool {
	if key == "" || len(key) > maxKeyBytes {
		return false
	}
	if !utf8Keys {
		return keyRE.MatchString(key)
	}
	if !utf8.ValidString(key) {
		return false
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

func validBucketName(name string) bool { return bucketRE.MatchString(name) }

// mimeAllowed matches a content type against a bucket's
// allowed_mime_types, where "image/*" admits any image type; an empty list
// admits everything. Parameters (";charset=...") are ignored.
func mimeAllowed(mime string, allowed []string) bool {
	if len(allowed) == 0 {
		return true
	}
	base := strings.ToLower(strings.TrimSpace(strings.SplitN(mime, ";", 2)[0]))
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == base || a == "*/*" || a == "*" {
			return true
		}
		if prefix, ok := strings.CutSuffix(a, "/*"); ok && strings.HasPrefix(base, prefix+"/") {
			return true
		}
	}
	return false
}
