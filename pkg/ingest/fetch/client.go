// Package fetch is the crawler's HTTP client: polite to Bandcamp and safe
// with URLs that users typed.
//
// Politeness: one request at a time per site (all of *.bandcamp.com is one
// site, since Bandcamp limits by client address), a minimum gap between
// requests, an honest User-Agent, and bounded exponential back-off that
// honours Retry-After. Safety: requests and redirects go only to Bandcamp's
// hosts or to hosts the caller vouches for, every dialled address must be
// public (checked after DNS resolution, so rebinding cannot dodge it),
// and responses are size-capped and time-limited.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
)

// Errors a Get can return besides transport failures.
var (
	// ErrDisallowed means the URL or an address it resolved to is off
	// limits. It is final: retrying cannot help.
	ErrDisallowed = errors.New("fetch: destination not allowed")
	// ErrTooLarge means the body passed Options.MaxBytes.
	ErrTooLarge = errors.New("fetch: response too large")
	// ErrBlocked means the site asked for a pause longer than
	// Options.MaxWait and the pause is not over; no request was sent.
	ErrBlocked = errors.New("fetch: site asked to pause")
)

// Options configures a Client. Zero values take the defaults noted.
type Options struct {
	UserAgent string
	// Interval is the least time between two requests to one site.
	Interval time.Duration
	// Upstream, when set, receives every request in place of the real host,
	// with the Host header kept, so tests can serve Bandcamp locally. The
	// public-address check is off then: the upstream is the only peer.
	Upstream string
	// MaxBytes caps a response body (default 5 MiB).
	MaxBytes int64
	// Timeout bounds one request, body included (default 30 s).
	Timeout time.Duration
	// MaxAttempts bounds tries of one URL on 429, 5xx and network errors
	// (default 4).
	MaxAttempts int
	// BaseBackoff is the first back-off without Retry-After; it doubles
	// per attempt (default 2 s).
	BaseBackoff time.Duration
	// MaxWait is the longest single pause honoured. A longer Retry-After
	// pauses the whole site until then instead of stalling the caller
	// (default 2 min).
	MaxWait time.Duration
	// Sleep waits for d or until ctx ends; tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; tests replace it.
	Now func() time.Time
	Log *slog.Logger
}

// Client fetches pages. It is safe for concurrent use.
type Client struct {
	opts     Options
	http     *http.Client
	upstream *url.URL

	mu    sync.Mutex
	sites map[string]*site
}

// site serialises requests to one site and remembers its pauses.
type site struct {
	mu    sync.Mutex
	next  time.Time // no request before this
	until time.Time // ErrBlocked before this
}

// Response is a fetched page.
type Response struct {
	// URL is the page's URL after redirects, as Bandcamp knows it (never
	// the upstream's).
	URL    *url.URL
	Status int
	Header http.Header
	Body   []byte
	// Location is set when Status is a redirect the client refused to
	// follow because it leaves the allowed hosts.
	Location string
}

const maxRedirects = 5

// New returns a Client.
func New(o Options) (*Client, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = 5 << 20
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 4
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = 2 * time.Second
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 2 * time.Minute
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := &Client{opts: o, sites: map[string]*site{}}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: guard}
	if o.Upstream != "" {
		u, err := url.Parse(o.Upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("fetch: upstream must be an http(s) origin, got %q", o.Upstream)
		}
		c.upstream = &url.URL{Scheme: u.Scheme, Host: u.Host}
		dialer.Control = nil
	}
	c.http = &http.Client{
		Timeout: o.Timeout,
		Transport: &http.Transport{
			// No proxy from the environment: the address check must see
			// the real peer.
			Proxy:                 nil,
			DialContext:           dialer.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 20 * time.Second,
			IdleConnTimeout:       60 * time.Second,
			MaxIdleConnsPerHost:   2,
		},
		// Redirects are followed by Get, one checked hop at a time.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// Validators are what an earlier response said about a page (its ETag and
// Last-Modified headers). Sent back, they let the server answer 304 Not
// Modified, without a body, when the page has not changed.
type Validators struct {
	ETag         string
	LastModified string
}

// ValidatorsOf reads the validators of a response.
func ValidatorsOf(r *Response) Validators {
	if r == nil || r.Status != http.StatusOK {
		return Validators{}
	}
	return Validators{ETag: r.Header.Get("ETag"), LastModified: r.Header.Get("Last-Modified")}
}

// Get fetches rawURL, following redirects that stay on Bandcamp or on the
// hosts in allow. The caller judges the status: 429 and 5xx come back as
// responses once the retries are spent.
func (c *Client) Get(ctx context.Context, rawURL string, allow ...string) (*Response, error) {
	return c.GetIf(ctx, rawURL, Validators{}, allow...)
}

// GetIf is Get as a conditional request: with validators set it sends
// If-None-Match and If-Modified-Since, and a 304 comes back as a response
// without a body.
func (c *Client) GetIf(ctx context.Context, rawURL string, v Validators, allow ...string) (*Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	if err := allowed(u, allow); err != nil {
		return nil, err
	}
	for hops := 0; ; hops++ {
		resp, err := c.getRetrying(ctx, u, v)
		if err != nil || !isRedirect(resp.Status) {
			return resp, err
		}
		next, err := u.Parse(resp.Header.Get("Location"))
		if err != nil {
			return nil, fmt.Errorf("fetch: %s: bad redirect: %w", u, err)
		}
		if allowed(next, allow) != nil {
			// A redirect off Bandcamp is not followed: the caller gets the
			// redirect itself and decides.
			resp.Location = next.String()
			return resp, nil //nolint:nilerr // see above
		}
		if hops == maxRedirects {
			return nil, fmt.Errorf("fetch: %s: more than %d redirects", rawURL, maxRedirects)
		}
		u = next
	}
}

// allowed checks a URL against the host policy before any request.
func allowed(u *url.URL, allow []string) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q", ErrDisallowed, u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in URL", ErrDisallowed)
	}
	host := u.Hostname()
	if !bandcamp.IsBandcampHost(host) && !slices.Contains(allow, host) {
		return fmt.Errorf("%w: %s is not a Bandcamp host", ErrDisallowed, host)
	}
	return nil
}

func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func (c *Client) site(host string) *site {
	key := host
	if bandcamp.IsBandcampHost(host) {
		key = bandcamp.Domain
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sites[key]
	if s == nil {
		s = &site{}
		c.sites[key] = s
	}
	return s
}

// do sends one request, waiting for the site's turn first.
func (c *Client) do(ctx context.Context, u *url.URL, v Validators) (*Response, error) {
	s := c.site(u.Hostname())
	s.mu.Lock()
	defer s.mu.Unlock()
	now := c.opts.Now()
	if now.Before(s.until) {
		return nil, fmt.Errorf("%w until %s", ErrBlocked, s.until.Format(time.RFC3339))
	}
	if wait := s.next.Sub(now); wait > 0 {
		if err := c.opts.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	defer func() { s.next = c.opts.Now().Add(c.opts.Interval) }()

	logical := *u
	logical.Scheme = "https" // Bandcamp serves nothing worth having over http
	target := logical
	if c.upstream != nil {
		target.Scheme, target.Host = c.upstream.Scheme, c.upstream.Host
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	req.Host = logical.Host
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	req.Header.Set("Accept-Language", "en") // dates and "released" lines are parsed in English
	if v.ETag != "" {
		req.Header.Set("If-None-Match", v.ETag)
	}
	if v.LastModified != "" {
		req.Header.Set("If-Modified-Since", v.LastModified)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch: GET %s: %w", &logical, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch: GET %s: reading body: %w", &logical, err)
	}
	if int64(len(body)) > c.opts.MaxBytes {
		return nil, fmt.Errorf("%w: %s is over %d bytes", ErrTooLarge, &logical, c.opts.MaxBytes)
	}
	c.opts.Log.Debug("fetched", "url", logical.String(), "status", resp.StatusCode, "bytes", len(body))
	return &Response{URL: &logical, Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
