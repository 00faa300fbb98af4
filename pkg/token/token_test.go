package token_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

const secret = "0123456789abcdef0123456789abcdef"

func sign(t *testing.T, c jwt.MapClaims) string {
	t.Helper()
	s, err := token.Sign(secret, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerify(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	v := token.NewVerifier(secret, "authenticated", func() time.Time { return now })
	user := jwt.MapClaims{"sub": "u1", "role": "authenticated", "aud": "authenticated", "session_id": "s1",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"role":"service_role"}`)) + "."
	hs512, _ := jwt.NewWithClaims(jwt.SigningMethodHS512, jwt.MapClaims{"role": "anon"}).SignedString([]byte(secret))
	otherKey, _ := token.Sign("another-secret-another-secret-00", jwt.MapClaims{"role": "anon"})

	cases := []struct {
		name string
		raw  string
		want error
	}{
		{"user token", sign(t, user), nil},
		{"anon API key", token.APIKey(secret, "anon"), nil},
		{"within leeway after expiry", sign(t, jwt.MapClaims{"role": "anon", "exp": now.Add(-20 * time.Second).Unix()}), nil},
		{"expired", sign(t, jwt.MapClaims{"role": "anon", "exp": now.Add(-time.Minute).Unix()}), token.ErrExpired},
		{"not valid yet", sign(t, jwt.MapClaims{"role": "anon", "nbf": now.Add(time.Minute).Unix()}), token.ErrNotYetValid},
		{"issued in the future", sign(t, jwt.MapClaims{"role": "anon", "iat": now.Add(time.Minute).Unix()}), token.ErrIssuedInFuture},
		{"wrong audience", sign(t, jwt.MapClaims{"role": "authenticated", "aud": "other"}), token.ErrAudience},
		{"no role", sign(t, jwt.MapClaims{"sub": "x"}), token.ErrClaims},
		{"alg none", none, token.ErrMalformed},
		{"HS512", hs512, token.ErrMalformed},
		{"other key", otherKey, token.ErrSignature},
		{"garbage", "not.a.jwt", token.ErrMalformed},
		{"empty", "  ", token.ErrMissing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := v.Verify(tc.raw)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v; want %v", err, tc.want)
			}
			if tc.want == nil && (got.Role == "" || !strings.Contains(string(got.JSON), `"role"`)) {
				t.Fatalf("verified = %+v", got)
			}
		})
	}
	got, _ := v.Verify(sign(t, user))
	if got.Subject != "u1" || got.SessionID != "s1" || !got.Expires.Equal(now.Add(time.Hour)) {
		t.Errorf("claims = %+v", got)
	}
}

// A cached token must still expire.
func TestCacheHonoursExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	clock := now
	v := token.NewVerifier(secret, "", func() time.Time { return clock })
	raw := sign(t, jwt.MapClaims{"role": "anon", "exp": now.Add(time.Minute).Unix()})
	if _, err := v.Verify(raw); err != nil {
		t.Fatal(err)
	}
	clock = now.Add(2 * time.Minute)
	if _, err := v.Verify(raw); !errors.Is(err, token.ErrExpired) {
		t.Fatalf("cached token after expiry: %v", err)
	}
}

func TestAPIKeysAreStable(t *testing.T) {
	t.Parallel()
	if first, again := token.APIKey(secret, "anon"), token.APIKey(secret, "anon"); first != again {
		t.Error("APIKey must be deterministic")
	}
	if token.APIKey(secret, "anon") == token.APIKey("ffffffffffffffffffffffffffffffff", "anon") {
		t.Error("APIKey must depend on the secret")
	}
}
