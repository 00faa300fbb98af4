package auth

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
)

// maxLimiterKeys bounds each limiter's memory: beyond it, idle buckets are
// dropped first and then the least recently used, so a flood of addresses
// cannot grow the map without end.
const maxLimiterKeys = 10000

// limiter is an in-memory token bucket per client IP, as GoTrue keeps one
// per endpoint: Burst requests at once, refilled at Count per Per. It is
// per process; several gateways behind one balancer each allow the full
// rate.
type limiter struct {
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

// allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *limiter) allow(key string) (bool, time.Duration) {
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
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
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
func (l *limiter) check(ip string) error {
	ok, wait := l.allow(ip)
	if ok {
		return nil
	}
	secs := int64(math.Ceil(wait.Seconds()))
	if secs < 1 {
		secs = 1
	}
	return apierr.New(http.StatusTooManyRequests, codeOverRequestRateLimit, "Request rate limit reached").
		WithHeader("Retry-After", strconv.FormatInt(secs, 10))
}
