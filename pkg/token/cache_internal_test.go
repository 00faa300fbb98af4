package token

import (
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The cache holds at most maxCached tokens; a token large enough to fill
// most of a request header must not be kept, or 10,000 of them would pin
// hundreds of megabytes.
func TestCacheSkipsLargeTokens(t *testing.T) {
	t.Parallel()
	const secret = "0123456789abcdef0123456789abcdef"
	v := NewVerifier(secret, "", nil)
	big, err := Sign(secret, jwt.MapClaims{"role": "authenticated", "exp": time.Now().Add(time.Hour).Unix(),
		"user_metadata": map[string]any{"blob": strings.Repeat("x", 32<<10)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(big); err != nil {
		t.Fatal(err)
	}
	small := APIKey(secret, "anon")
	if _, err := v.Verify(small); err != nil {
		t.Fatal(err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.cache[big]; ok {
		t.Error("a 32 KiB token was cached")
	}
	if _, ok := v.cache[small]; !ok {
		t.Error("a small token was not cached")
	}
}
