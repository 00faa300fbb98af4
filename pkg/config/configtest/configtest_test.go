package configtest_test

import (
	"testing"

	"github.com/labelbase/labelbase/pkg/config/configtest"
)

func TestNewIsLoadWithDefaults(t *testing.T) {
	t.Parallel()
	c := configtest.New(t, nil)
	if c.DatabaseURL != configtest.DatabaseURL || c.JWTSecret != configtest.Secret || c.DBPoolSize != 10 || c.AnonKey == "" {
		t.Errorf("not Load's defaults: %+v", c)
	}
	c = configtest.New(t, map[string]string{"JWT_SECRET": "another-secret-0123456789abcdef-xyz", "CRAWL_AT": "04:30"})
	if c.JWTSecret != "another-secret-0123456789abcdef-xyz" || c.CrawlAt != "04:30" {
		t.Errorf("overrides not applied: %+v", c)
	}
}

// A bad value fails the calling test rather than returning a half-valid
// configuration.
func TestNewFailsOnBadValue(t *testing.T) {
	t.Parallel()
	ft := &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }()
		configtest.New(ft, map[string]string{"DB_POOL_SIZE": "one"})
	}()
	if !ft.failed {
		t.Error("a bad value did not fail the test")
	}
}

type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}

func (f *fakeT) Fatalf(string, ...any) { f.failed = true; panic("fatal") }
