package server

import (
	"net/http/httptest"
	"testing"
)

// Without TRUSTED_PROXY_HEADER a client cannot pick its own address (and so
// escape the per-IP rate limits) with X-Forwarded-For or X-Real-IP.
func TestIPExtractorIgnoresForwardingHeadersUnlessTrusted(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "192.0.2.7:5555"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	r.Header.Set("X-Real-IP", "203.0.113.10")
	if got := ipExtractor("")(r); got != "192.0.2.7" {
		t.Errorf("untrusted: %q", got)
	}
	// Trusted: the right-most entry, which the proxy appended.
	r.Header.Set("X-Forwarded-For", "198.51.100.1, 203.0.113.9")
	if got := ipExtractor("X-Forwarded-For")(r); got != "203.0.113.9" {
		t.Errorf("trusted: %q", got)
	}
	r.Header.Set("X-Forwarded-For", "garbage")
	if got := ipExtractor("X-Forwarded-For")(r); got != "192.0.2.7" {
		t.Errorf("trusted, unparsable: %q", got)
	}
}
