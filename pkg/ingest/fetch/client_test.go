package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/fetch/fetchtest"
)

type testBundle struct {
	clock *fetchtest.Clock
	hosts chan string // the Host header of every request, in order
}

// setup starts an upstream answering with h and a Client pointed at it.
func setup(t *testing.T, h http.HandlerFunc, o Options) (*Client, *testBundle) {
	t.Helper()
	b := &testBundle{clock: fetchtest.NewClock(time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)), hosts: make(chan string, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hosts <- r.Host
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	o.Upstream = srv.URL
	o.Sleep, o.Now = b.clock.Sleep, b.clock.Now
	if o.UserAgent == "" {
		o.UserAgent = "LabelbaseTest/1.0"
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c, b
}

func (b *testBundle) seen() []string {
	var out []string
	for {
		select {
		case h := <-b.hosts:
			out = append(out, h)
		default:
			return out
		}
	}
}

func TestUpstreamKeepsHostAndUserAgent(t *testing.T) {
	t.Parallel()
	var ua, accept atomic.Value
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.UserAgent())
		accept.Store(r.URL.String())
		_, _ = w.Write([]byte("ok"))
	}, Options{UserAgent: "Labelbase/1.0 (+test)"})
	resp, err := c.Get(context.Background(), "https://northmoor.bandcamp.com/music?x=1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 || string(resp.Body) != "ok" || resp.URL.String() != "https://northmoor.bandcamp.com/music?x=1" {
		t.Errorf("resp = %d %q %s", resp.Status, resp.Body, resp.URL)
	}
	if got := b.seen(); len(got) != 1 || got[0] != "northmoor.bandcamp.com" {
		t.Errorf("upstream saw Host %q", got)
	}
	if ua.Load() != "Labelbase/1.0 (+test)" || accept.Load() != "/music?x=1" {
		t.Errorf("User-Agent %q, path %q", ua.Load(), accept.Load())
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		_, _ = w.Write([]byte("ok"))
	}, Options{})
	resp, err := c.Get(context.Background(), "https://northmoor.bandcamp.com/music")
	if err != nil || resp.Status != 200 {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	if got := b.clock.Slept(); len(got) != 2 || got[0] != 7*time.Second || got[1] != 7*time.Second {
		t.Errorf("slept %v, want 7s twice", got)
	}
}

func TestRetryBacksOffExponentiallyAndGivesUp(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}, Options{MaxAttempts: 4, BaseBackoff: time.Second})
	resp, err := c.Get(context.Background(), "https://northmoor.bandcamp.com/music")
	if err != nil || resp.Status != http.StatusServiceUnavailable {
		t.Fatalf("resp %v, err %v; want the last 503", resp, err)
	}
	if n := len(b.seen()); n != 4 {
		t.Errorf("%d requests, want 4", n)
	}
	slept := b.clock.Slept()
	if len(slept) != 3 {
		t.Fatalf("slept %v, want 3 waits", slept)
	}
	for i, d := range slept {
		lo := time.Second << i
		if d < lo || d > lo+lo/2 {
			t.Errorf("wait %d = %v, want between %v and %v", i, d, lo, lo+lo/2)
		}
	}
}

func TestLongRetryAfterPausesTheSite(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		w.WriteHeader(http.StatusTooManyRequests)
	}, Options{MaxWait: time.Minute})
	resp, err := c.Get(context.Background(), "https://crowded.bandcamp.com/music")
	if err != nil || resp.Status != http.StatusTooManyRequests {
		t.Fatalf("resp %v, err %v", resp, err)
	}
	if len(b.clock.Slept()) != 0 {
		t.Errorf("slept %v; a pause over MaxWait must not be waited out", b.clock.Slept())
	}
	// Every Bandcamp host is one site: the pause covers them all.
	if _, err := c.Get(context.Background(), "https://northmoor.bandcamp.com/music"); !errors.Is(err, ErrBlocked) {
		t.Errorf("err = %v, want ErrBlocked", err)
	}
	if n := len(b.seen()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestNetworkErrorsAreRetried(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	}, Options{MaxAttempts: 3})
	_, err := c.Get(context.Background(), "https://dropped.bandcamp.com/music")
	if err == nil || errors.Is(err, ErrDisallowed) {
		t.Fatalf("err = %v, want a transport error", err)
	}
	if n := len(b.seen()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

func TestIntervalBetweenRequests(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {}, Options{Interval: 1500 * time.Millisecond})
	for _, u := range []string{"https://a.bandcamp.com/music", "https://b.bandcamp.com/music", "https://a.bandcamp.com/album/x"} {
		if _, err := c.Get(context.Background(), u); err != nil {
			t.Fatal(err)
		}
	}
	if got := b.clock.Slept(); len(got) != 2 || got[0] != 1500*time.Millisecond || got[1] != 1500*time.Millisecond {
		t.Errorf("slept %v, want the interval before the 2nd and 3rd requests", got)
	}
}

func TestRedirects(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Host + r.URL.Path {
		case "lonefern.bandcamp.com/music":
			http.Redirect(w, r, "/album/first-light", http.StatusFound)
		case "elsewhere.bandcamp.com/music":
			http.Redirect(w, r, "https://evil.example/music", http.StatusFound)
		case "tidewater.bandcamp.com/music":
			http.Redirect(w, r, "https://music.tidewater.example/music", http.StatusMovedPermanently)
		case "loop.bandcamp.com/music":
			http.Redirect(w, r, "/music", http.StatusFound)
		default:
			_, _ = w.Write([]byte(r.Host + r.URL.Path))
		}
	}, Options{})
	ctx := context.Background()

	resp, err := c.Get(ctx, "https://lonefern.bandcamp.com/music")
	if err != nil || resp.Status != 200 || resp.URL.String() != "https://lonefern.bandcamp.com/album/first-light" {
		t.Errorf("same-host redirect: %v %v", resp, err)
	}
	resp, err = c.Get(ctx, "https://elsewhere.bandcamp.com/music")
	if err != nil || resp.Status != http.StatusFound || resp.Location != "https://evil.example/music" {
		t.Errorf("foreign redirect: %v %v; want it returned, not followed", resp, err)
	}
	resp, err = c.Get(ctx, "https://tidewater.bandcamp.com/music", "music.tidewater.example")
	if err != nil || string(resp.Body) != "music.tidewater.example/music" {
		t.Errorf("redirect to a vouched-for custom domain: %v %v", resp, err)
	}
	if _, err := c.Get(ctx, "https://loop.bandcamp.com/music"); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("redirect loop: err = %v", err)
	}
	for _, h := range b.seen() {
		if h == "evil.example" {
			t.Error("a request went to the foreign host")
		}
	}
}

func TestDisallowedURLsAreNeverRequested(t *testing.T) {
	t.Parallel()
	c, b := setup(t, func(w http.ResponseWriter, r *http.Request) {}, Options{})
	for _, u := range []string{"https://evil.example/", "http://127.0.0.1/", "ftp://northmoor.bandcamp.com/", "https://u:p@northmoor.bandcamp.com/",
		"https://bandcamp.com.evil.example/"} {
		if _, err := c.Get(context.Background(), u); !errors.Is(err, ErrDisallowed) {
			t.Errorf("Get(%q) err = %v, want ErrDisallowed", u, err)
		}
	}
	if n := len(b.seen()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestResponseSizeCap(t *testing.T) {
	t.Parallel()
	c, _ := setup(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 2048)))
	}, Options{MaxBytes: 1024})
	if _, err := c.Get(context.Background(), "https://big.bandcamp.com/music"); !errors.Is(err, ErrTooLarge) {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

// Without an upstream, the dialer refuses private addresses whatever the
// host policy said: a local server is unreachable even when vouched for.
func TestPrivateAddressGuard(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	c, err := New(Options{MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{srv.URL + "/", local + "/"} {
		host := strings.Split(strings.TrimPrefix(u, "http://"), ":")[0]
		if _, err := c.Get(context.Background(), u, host); !errors.Is(err, ErrDisallowed) {
			t.Errorf("Get(%s) err = %v, want ErrDisallowed", u, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the local server got %d requests", hits.Load())
	}
}

func TestGuard(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"93.184.215.14:443":           true,
		"93.184.215.14:80":            true,
		"[2606:2800:21f:cb07::1]:443": true,
		"93.184.215.14:8080":          false,
		"127.0.0.1:443":               false,
		"10.1.2.3:443":                false,
		"172.16.0.1:443":              false,
		"192.168.1.1:80":              false,
		"169.254.169.254:80":          false,
		"100.64.0.1:443":              false,
		"0.0.0.0:443":                 false,
		"[::1]:443":                   false,
		"[fd00::1]:443":               false,
		"[fe80::1]:443":               false,
		"[::ffff:127.0.0.1]:443":      false,
		"[64:ff9b::a00:1]:443":        false,
		"224.0.0.1:443":               false,
	} {
		if err := guard("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("guard(%s) = %v, want allowed=%v", addr, err, ok)
		}
	}
	if publicAddr(netip.Addr{}) {
		t.Error("the zero address passed")
	}
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 3, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"7":                             7 * time.Second,
		"Sun, 01 Mar 2026 03:01:00 GMT": time.Minute,
		"Sun, 01 Mar 2026 02:00:00 GMT": 0,
	} {
		h := http.Header{"Retry-After": {v}}
		if got, ok := retryAfter(h, now); !ok || got != want {
			t.Errorf("retryAfter(%q) = %v, %v; want %v", v, got, ok, want)
		}
	}
	if _, ok := retryAfter(http.Header{"Retry-After": {"soon"}}, now); ok {
		t.Error("retryAfter(soon) parsed")
	}
}

func TestConditionalRequests(t *testing.T) {
	t.Parallel()
	var inm, ims atomic.Value
	c, _ := setup(t, func(w http.ResponseWriter, r *http.Request) {
		inm.Store(r.Header.Get("If-None-Match"))
		ims.Store(r.Header.Get("If-Modified-Since"))
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Mon, 02 Mar 2026 10:00:00 GMT")
		_, _ = w.Write([]byte("page"))
	}, Options{})
	ctx := context.Background()
	first, err := c.Get(ctx, "https://northmoor.bandcamp.com/music")
	if err != nil {
		t.Fatal(err)
	}
	v := ValidatorsOf(first)
	if v != (Validators{ETag: `"v1"`, LastModified: "Mon, 02 Mar 2026 10:00:00 GMT"}) || inm.Load() != "" || ims.Load() != "" {
		t.Fatalf("validators %+v; first request sent If-None-Match %q", v, inm.Load())
	}
	second, err := c.GetIf(ctx, "https://northmoor.bandcamp.com/music", v)
	if err != nil {
		t.Fatal(err)
	}
	if second.Status != http.StatusNotModified || len(second.Body) != 0 || inm.Load() != `"v1"` || ims.Load() != v.LastModified {
		t.Errorf("conditional request: status %d, sent %q / %q", second.Status, inm.Load(), ims.Load())
	}
	if ValidatorsOf(second) != (Validators{}) {
		t.Error("a 304 must not replace the stored validators")
	}
}
