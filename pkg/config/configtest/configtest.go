// Package configtest gives tests a valid configuration to adjust.
//
// A hand-built &config.Config{...} leaves every other setting at Go's zero
// value (a pool of 0, no crawl limits, no keys), a configuration Load never
// returns, and silently misses each setting added later. New instead runs
// config.Load on a minimal environment, so a test starts from the
// defaults production has and changes only what it is about.
//
// Test code only: depguard (.golangci.yml) keeps it out of production
// packages.
package configtest

import (
	"testing"

	"github.com/labelbase/labelbase/pkg/config"
)

// Secret is the JWT_SECRET New uses unless the environment gives one.
const Secret = "configtest-secret-0123456789abcdef"

// DatabaseURL is the DATABASE_URL New uses unless the environment gives
// one: valid to parse, never reachable. Tests with a database set it to
// pgtest's URL.
const DatabaseURL = "postgres://configtest.invalid/labelbase"

// New returns config.Load's result for env (variable name to value) laid
// over DATABASE_URL and JWT_SECRET; a bad value fails the test.
func New(t testing.TB, env map[string]string) *config.Config {
	t.Helper()
	c, err := config.Load(func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		switch k {
		case "DATABASE_URL":
			return DatabaseURL
		case "JWT_SECRET":
			return Secret
		}
		return ""
	})
	if err != nil {
		t.Fatalf("configtest: %v", err)
	}
	return c
}
