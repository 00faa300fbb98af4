package auth

import (
	"context"
	"time"
)

// The database rate limiter's statements (RATE_LIMIT_STORE=database): its
// buckets are rows of auth.rate_limits, one per family and client key.

// takeRateToken takes a token from the bucket (family, key), refilled at
// rate per second up to burst, under the row's lock; it reports whether
// one was left and how many remain.
func takeRateToken(ctx context.Context, q dbtx, family, key string, rate, burst float64, now time.Time) (bool, float64, error) {
	var ok bool
	var tokens float64
	err := q.QueryRow(ctx, "SELECT allowed, tokens FROM auth.take_rate_limit_token($1, $2, $3, $4, $5)",
		family, key, rate, burst, now).Scan(&ok, &tokens)
	return ok, tokens, translate("rate limit", err)
}

// sweepRateBuckets forgets the family's buckets untouched since before.
func sweepRateBuckets(ctx context.Context, q dbtx, family string, before time.Time) error {
	_, err := q.Exec(ctx, "DELETE FROM auth.rate_limits WHERE bucket = $1 AND updated_at < $2", family, before)
	return translate("rate limit sweep", err)
}

// refundRateToken puts one token back into the bucket (family, key),
// never above burst.
func refundRateToken(ctx context.Context, q dbtx, family, key string, burst float64) error {
	_, err := q.Exec(ctx, `UPDATE auth.rate_limits SET tokens = least($3, tokens + 1) WHERE bucket = $1 AND key = $2`,
		family, key, burst)
	return translate("rate limit refund", err)
}
