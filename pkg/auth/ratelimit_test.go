package auth

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestLimiter runs the same bucket arithmetic against both stores: the
// process's map and auth.rate_limits.
func TestLimiter(t *testing.T) {
	t.Parallel()
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		testLimiter(t, func(l *limiter, name string) *limiter { return l })
	})
	t.Run("database", func(t *testing.T) {
		t.Parallel()
		pool := pgtest.New(t).Pool
		testLimiter(t, func(l *limiter, name string) *limiter { return l.shared(pool, name) })
	})
}

func testLimiter(t *testing.T, store func(l *limiter, name string) *limiter) {
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
			l := store(newLimiter(tc.rl, clock.Now), tc.name)
			for i := 0; i < tc.burst; i++ {
				if err := l.check(context.Background(), "a"); err != nil {
					t.Fatalf("request %d refused: %v", i, err)
				}
			}
			err := l.check(context.Background(), "a")
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != 429 || ae.Code != "over_request_rate_limit" {
				t.Fatalf("over the burst: %v", err)
			}
			if got := ae.Header.Get("Retry-After"); got != tc.wantRetry {
				t.Errorf("Retry-After = %q, want %q", got, tc.wantRetry)
			}
			if err := l.check(context.Background(), "b"); err != nil {
				t.Errorf("other key refused: %v", err)
			}
			// A refill of one token allows one more request, not two.
			l.now = func() time.Time { return clock.Now().Add(tc.refill) }
			if err := l.check(context.Background(), "a"); err != nil {
				t.Errorf("after refill: %v", err)
			}
			if tc.refill >= time.Second {
				if err := l.check(context.Background(), "a"); err == nil {
					t.Error("second request after one refill allowed")
				}
			}
			// Long idleness refills to the burst, never beyond.
			l.now = func() time.Time { return clock.Now().Add(1000 * time.Hour) }
			for i := 0; i < tc.burst; i++ {
				if err := l.check(context.Background(), "a"); err != nil {
					t.Fatalf("after idle, request %d refused", i)
				}
			}
			if err := l.check(context.Background(), "a"); err == nil {
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
		_ = l.check(context.Background(), fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		if len(l.buckets) > l.max {
			t.Fatalf("map grew to %d", len(l.buckets))
		}
	}
	// The most recent address is still limited: eviction took the oldest.
	if err := l.check(context.Background(), "10.0.3.231"); err == nil {
		t.Error("recent key was evicted")
	}
	// Buckets that have refilled are dropped first.
	clock.Advance(2 * time.Hour)
	if err := l.check(context.Background(), "fresh"); err != nil {
		t.Fatal(err)
	}
	if len(l.buckets) != 1 {
		t.Errorf("after idle eviction %d buckets remain", len(l.buckets))
	}
}

// TestSharedLimiter checks what the database store adds: two limiters on
// one table (two gateways) draw from one bucket, concurrent takes never
// hand out more than the burst, and a sweep forgets only refilled buckets.
func TestSharedLimiter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t).Pool
	clock := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	rl := config.RateLimit{Count: 1, Per: time.Minute, Burst: 10}
	a := newLimiter(rl, clock.Now).shared(pool, "token")
	b := newLimiter(rl, clock.Now).shared(pool, "token")

	var wg sync.WaitGroup
	var allowed atomic.Int64
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func(l *limiter) {
			defer wg.Done()
			ok, _, err := l.allow(ctx, "10.0.0.1")
			if err != nil {
				t.Error(err)
			}
			if ok {
				allowed.Add(1)
			}
		}([]*limiter{a, b}[i%2])
	}
	wg.Wait()
	if got := allowed.Load(); got != 10 {
		t.Fatalf("40 concurrent takes over two gateways allowed %d, want the burst of 10", got)
	}
	if err := b.check(ctx, "10.0.0.2"); err != nil {
		t.Fatalf("another key shares the bucket: %v", err)
	}
	// Another family is another bucket.
	if err := newLimiter(rl, clock.Now).shared(pool, "signup").check(ctx, "10.0.0.1"); err != nil {
		t.Fatalf("signup family refused by the token family's bucket: %v", err)
	}

	count := func() (n int) {
		t.Helper()
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM auth.rate_limits WHERE bucket = 'token'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	clock.Advance(5 * time.Minute) // 10.0.0.1 holds 5 tokens, 10.0.0.2 is full
	if err := a.check(ctx, "10.0.0.1"); err != nil {
		t.Fatalf("after a partial refill: %v", err)
	}
	clock.Advance(6 * time.Minute) // 10.0.0.2 idle for 11 min > 10 min to refill
	if err := a.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the sweep %d token buckets are left, want 1 (the one used 6 minutes ago)", n)
	}
}
