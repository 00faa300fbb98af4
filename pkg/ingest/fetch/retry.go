package fetch

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// getRetrying fetches u, retrying 429, 5xx and transport failures with
// exponential back-off, or after Retry-After when the server gives one.
func (c *Client) getRetrying(ctx context.Context, u *url.URL, v Validators) (*Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := c.do(ctx, u, v)
		if !retryable(ctx, resp, err) || attempt == c.opts.MaxAttempts {
			return resp, err
		}
		wait, told := time.Duration(0), false
		if resp != nil {
			wait, told = retryAfter(resp.Header, c.opts.Now())
		}
		if !told {
			wait = backoff(c.opts.BaseBackoff, attempt)
		}
		s := c.site(u.Hostname())
		s.mu.Lock()
		if wait > c.opts.MaxWait {
			// Waiting that long would stall the whole pass; pause the site
			// and let the caller retry on a later run.
			s.until = c.opts.Now().Add(wait)
			s.mu.Unlock()
			c.opts.Log.Warn("site asked for a long pause", "url", u.String(), "wait", wait)
			return resp, err
		}
		if next := c.opts.Now().Add(wait); next.After(s.next) {
			s.next = next
		}
		s.mu.Unlock()
		c.opts.Log.Debug("will retry", "url", u.String(), "attempt", attempt, "wait", wait, "status", status(resp), "err", err)
	}
}

func retryable(ctx context.Context, resp *Response, err error) bool {
	if err != nil {
		return ctx.Err() == nil && !errors.Is(err, ErrDisallowed) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrBlocked)
	}
	return resp.Status == http.StatusTooManyRequests || resp.Status >= 500
}

func status(resp *Response) int {
	if resp == nil {
		return 0
	}
	return resp.Status
}

// retryAfter reads Retry-After as seconds or as an HTTP date.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// backoff is base·2^(attempt-1) plus up to half as much jitter, so that
// several crawlers behind one address do not retry in step.
func backoff(base time.Duration, attempt int) time.Duration {
	d := base << (attempt - 1)
	return d + rand.N(d/2+1)
}
