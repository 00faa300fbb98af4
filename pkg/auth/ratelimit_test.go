package auth

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	tests := []struct {
		name      string
		rl        config.RateLimit
		burst     int
		refill    time.Duration // time for one token
		wantRetry string
	}{
		{"token endpoint defaults", config.RateLimit{Count: 1800, Per: time.Hour, Burst: 30}, 30, 2 * time.Second, "2"},
		{"signup defaults", config.RateLimit{Count: 30, Per: 5 * time.Minute, Burst: 30}, 30, 10 * time.Second, "10"},
		{"slow", config.RateLimit{Count: 1, Per: time.Hour, Burst: 2}, 2, time.Hour, "3600"},
		{"fast rate rounds Retry-After up to 1", config.RateLimit{Count: 100000, Per: time.Second, Burst: 1}, 1, 10 * time.Microsecond, "1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimiter(tc.rl, clock.Now)
			for i := 0; i < tc.burst; i++ {
				if err := l.check("a"); err != nil {
					t.Fatalf("request %d refused: %v", i, err)
				}
			}
			err := l.check("a")
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != 429 || ae.Code != "over_request_rate_limit" {
				t.Fatalf("over the burst: %v", err)
			}
			if got := ae.Header.Get("Retry-After"); got != tc.wantRetry {
				t.Errorf("Retry-After = %q, want %q", got, tc.wantRetry)
			}
			if err := l.check("b"); err != nil {
				t.Errorf("other key refused: %v", err)
			}
			// A refill of one token allows one more request, not two.
			l.now = func() time.Time { return clock.Now().Add(tc.refill) }
			if err := l.check("a"); err != nil {
				t.Errorf("after refill: %v", err)
			}
			if tc.refill >= time.Second {
				if err := l.check("a"); err == nil {
					t.Error("second request after one refill allowed")
				}
			}
			// Long idleness refills to the burst, never beyond.
			l.now = func() time.Time { return clock.Now().Add(1000 * time.Hour) }
			for i := 0; i < tc.burst; i++ {
				if err := l.check("a"); err != nil {
					t.Fatalf("after idle, request %d refused", i)
				}
			}
			if err := l.check("a"); err == nil {
				t.Error("burst exceeded after idle")
			}
		})
	}
}

func TestLimiterBounded(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	l := newLimiter(config.RateLimit{Count: 1, Per: time.Hour, Burst: 1}, clock.Now)
	l.max = 100
	for i := 0; i < 1000; i++ {
		clock.Advance(time.Millisecond)
		_ = l.check(fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		if len(l.buckets) > l.max {
			t.Fatalf("map grew to %d", len(l.buckets))
		}
	}
	// The most recent address is still limited: eviction took the oldest.
	if err := l.check("10.0.3.231"); err == nil {
		t.Error("recent key was evicted")
	}
	// Buckets that have refilled are dropped first.
	clock.Advance(2 * time.Hour)
	l.check("fresh")
	if len(l.buckets) != 1 {
		t.Errorf("after idle eviction %d buckets remain", len(l.buckets))
	}
}
