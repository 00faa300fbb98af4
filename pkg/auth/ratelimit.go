package auth

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
)

// maxLimiterKeys bounds each in-memory limiter: beyond it, idle buckets are
// dropped first and then the least recently used, so a flood of addresses
// cannot grow the map without end.
const maxLimiterKeys = 10000

// limiter is a token bucket per key (the client IP), as GoTrue keeps one
// per endpoint: Burst requests at once, refilled at Count per Per.
//
// With a pool (RATE_LIMIT_STORE=database) the buckets live in
// auth.rate_limits (ratelimit_store.go), shared by every gateway on the
// database: one round trip per check, under the bucket row's lock. Without one they live in
// this process, and N gateways behind a balancer allow N times the rate.
type limiter struct {
	name  string // the bucket family in auth.rate_limits
	pool  *pgxpool.Pool
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time
	max   int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rl config.RateLimit, now func() time.Time) *limiter {
	burst := rl.Burst
	if burst < 1 {
		burst = 1
	}
	per := rl.Per
	if per <= 0 {
		per = time.Hour
	}
	count := rl.Count
	if count < 1 {
		count = 1
	}
	return &limiter{
		rate:    float64(count) / per.Seconds(),
		burst:   float64(burst),
		now:     now,
		max:     maxLimiterKeys,
		buckets: map[string]*bucket{},
	}
}

// shared returns a copy of l that keeps its buckets in the database as
// the family name.
func (l *limiter) shared(pool *pgxpool.Pool, name string) *limiter {
	return &limiter{name: name, pool: pool, rate: l.rate, burst: l.burst, now: l.now, max: l.max, buckets: map[string]*bucket{}}
}

// allow takes a token for key. When none is left it returns false and how
// long until one is. Only the database store can fail.
func (l *limiter) allow(ctx context.Context, key string) (bool, time.Duration, error) {
	if l.pool != nil {
		ok, tokens, err := takeRateToken(ctx, l.pool, l.name, key, l.rate, l.burst, l.now())
		if err != nil {
			return false, 0, err
		}
		return ok, l.wait(tokens), nil
	}
	ok, wait := l.allowLocal(key)
	return ok, wait, nil
}

// wait is how long until a bucket holding tokens has one.
func (l *limiter) wait(tokens float64) time.Duration {
	if tokens >= 1 {
		return 0
	}
	return time.Duration((1 - tokens) / l.rate * float64(time.Second))
}

// sweep forgets the database buckets that have refilled completely (they
// would start full anyway), so the table holds only recent clients.
func (l *limiter) sweep(ctx context.Context) error {
	if l.pool == nil {
		return nil
	}
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	return sweepRateBuckets(ctx, l.pool, l.name, l.now().Add(-full))
}

func (l *limiter) allowLocal(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.max {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	l.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, l.wait(b.tokens)
}

func (l *limiter) refill(b *bucket, now time.Time) {
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(l.burst, b.tokens+el*l.rate)
	}
	b.last = now
}

// evict drops buckets that have refilled completely (forgetting them
// changes nothing); if none has, it drops the least recently used.
func (l *limiter) evict(now time.Time) {
	var oldestKey string
	var oldest time.Time
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
			continue
		}
		if oldestKey == "" || b.last.Before(oldest) {
			oldestKey, oldest = k, b.last
		}
	}
	if len(l.buckets) >= l.max && oldestKey != "" {
		delete(l.buckets, oldestKey)
	}
}

// check returns GoTrue's 429 when ip is over the limit, with Retry-After in
// whole seconds (at least 1).
func (l *limiter) check(ctx context.Context, ip string) error {
	ok, wait, err := l.allow(ctx, ip)
	if err != nil || ok {
		return err
	}
	secs := int64(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return apierr.New(http.StatusTooManyRequests, codeOverRequestRateLimit, "Request rate limit reached").
		WithHeader("Retry-After", strconv.FormatInt(secs, 10))
}

// limitIP applies l to the client's IP and reports a refusal (limitBit)
// under name.
func (a *API) limitIP(ctx context.Context, l *limiter, name, ip string) error {
	err := l.check(ctx, ip)
	if err != nil && isTooMany(err) {
		a.limitBit(ctx, name, err)
	}
	return err
}

// limitBit reports a limit that refused a request, in the log and to
// Observe (metrics), so an operator sees a limit bite (issue #26 item 3):
// a stranger draining a budget, or members locked out by a limit set too
// low.
func (a *API) limitBit(ctx context.Context, limit string, err error) {
	a.logLimit(ctx, limit, err)
	a.observe(limit, "rate_limited")
}

// logLimit is limitBit's log line alone, for the token endpoint, whose
// refusals Observe counts under their grant.
func (a *API) logLimit(ctx context.Context, limit string, err error) {
	a.log.WarnContext(ctx, "auth: rate limit reached", "limit", limit, "err", err)
}

func isTooMany(err error) bool {
	var e *apierr.Error
	return errors.As(err, &e) && e.Status == http.StatusTooManyRequests
}

// refund puts back a token taken for key (never above the burst), for a
// request that turned out not to use what it was charged.
func (l *limiter) refund(ctx context.Context, key string) error {
	if l.pool != nil {
		return refundRateToken(ctx, l.pool, l.name, key, l.burst)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.buckets[key]; ok {
		b.tokens = math.Min(l.burst, b.tokens+1)
	}
	return nil
}
