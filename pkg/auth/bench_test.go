package auth

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Auth benchmarks through the real echo stack against a fresh database
// (docs/performance.md, "Gateway benchmarks"). benchSetup is the tests'
// setup with the rate limits raised, so the loop measures the handler
// rather than the 429 path.

func benchSetup(b *testing.B, cost int) *testEnv {
	b.Helper()
	return setup(b, map[string]string{
		"BCRYPT_COST":               strconv.Itoa(cost),
		"RATE_LIMIT_TOKEN_PER_HOUR": "1000000000",
		"RATE_LIMIT_BURST":          "1000000000",
	})
}

// benchPost sends a JSON POST to /auth/v1 as supabase-js does and returns
// the decoded session.
func (e *testEnv) benchPost(b *testing.B, path, body string) map[string]any {
	hr := httptest.NewRequest("POST", "/auth/v1"+path, strings.NewReader(body))
	hr.Header.Set("apikey", e.cfg.AnonKey)
	hr.Header.Set("Authorization", "Bearer "+e.cfg.AnonKey)
	hr.Header.Set("X-Supabase-Api-Version", "2024-01-01")
	hr.Header.Set("Content-Type", "application/json;charset=UTF-8")
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, hr)
	if rec.Code != http.StatusOK {
		b.Fatalf("POST %s: status %d: %s", path, rec.Code, rec.Body.String())
	}
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		b.Fatalf("POST %s: %v", path, err)
	}
	return out
}

const benchSignIn = `{"email":"bench@example.com","password":"bench-password","gotrue_meta_security":{}}`

// BenchmarkSignIn is grant_type=password. cost=4 is the test suites'
// BCRYPT_COST (main_test.go); cost=10 is the production default.
func BenchmarkSignIn(b *testing.B) {
	for _, cost := range []int{4, 10} {
		b.Run("bcrypt_cost="+strconv.Itoa(cost), func(b *testing.B) {
			e := benchSetup(b, cost)
			code := pgtest.CreateInvite(b, e.db.Pool, 1)
			e.benchPost(b, "/signup", `{"email":"bench@example.com","password":"bench-password","data":{"invite_code":"`+code+`"},"gotrue_meta_security":{}}`)
			b.ReportAllocs()
			for b.Loop() {
				if s := e.benchPost(b, "/token?grant_type=password", benchSignIn); s["access_token"] == nil {
					b.Fatalf("no access_token: %v", s)
				}
			}
		})
	}
}

// BenchmarkRefresh is grant_type=refresh_token, each iteration rotating
// the token the previous one returned (no reuse-interval shortcut).
func BenchmarkRefresh(b *testing.B) {
	e := benchSetup(b, 4)
	code := pgtest.CreateInvite(b, e.db.Pool, 1)
	s := e.benchPost(b, "/signup", `{"email":"bench@example.com","password":"bench-password","data":{"invite_code":"`+code+`"},"gotrue_meta_security":{}}`)
	rt, _ := s["refresh_token"].(string)
	b.ReportAllocs()
	for b.Loop() {
		s = e.benchPost(b, "/token?grant_type=refresh_token", `{"refresh_token":"`+rt+`"}`)
		next, _ := s["refresh_token"].(string)
		if next == "" || next == rt {
			b.Fatalf("not rotated: %q -> %q", rt, next)
		}
		rt = next
	}
}
