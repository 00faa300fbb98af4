// Package fakebandcamp is a fake Bandcamp for tests. It answers for many
// hosts on one local listener, routing by the Host header, which is how the
// crawler talks to it when BANDCAMP_UPSTREAM is set. Pages are rendered
// from the templates in testdata, shaped after reference/bandcamp.md; every
// label, artist and title in them is invented.
package fakebandcamp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request the fake received.
type Request struct {
	Host string
	Path string
}

// Server is a running fake.
type Server struct {
	// URL is the origin to use as BANDCAMP_UPSTREAM.
	URL string
	h   *handler
}

// New starts a fake that stops when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	h := newHandler()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &Server{URL: srv.URL, h: h}
}

// Handle answers host with h instead of the built-in pages; a nil h
// restores them.
func (s *Server) Handle(host string, h http.Handler) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	s.h.overrides[host] = h
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return append([]Request(nil), s.h.requests...)
}

// Hits counts the requests received for host.
func (s *Server) Hits(host string) int {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.hits[host]
}

// Fetch answers one request for host and path without a listener, for
// parser tests. Every call starts from a fresh state.
func Fetch(host, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "http://"+host+path, nil)
	newHandler().ServeHTTP(rec, req)
	return rec
}

type handler struct {
	now       func() time.Time
	mu        sync.Mutex
	requests  []Request
	hits      map[string]int
	overrides map[string]http.Handler
}

func newHandler() *handler {
	return &handler{now: time.Now, hits: map[string]int{}, overrides: map[string]http.Handler{}}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := strings.ToLower(r.Host)
	if hh, _, err := net.SplitHostPort(host); err == nil {
		host = hh
	}
	h.mu.Lock()
	h.requests = append(h.requests, Request{Host: host, Path: r.URL.Path})
	h.hits[host]++
	hits := h.hits[host]
	override := h.overrides[host]
	h.mu.Unlock()
	if override != nil {
		override.ServeHTTP(w, r)
		return
	}
	switch host {
	case RateLimitedHost:
		w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
		http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
	case FlakyHost:
		if hits == 1 {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "Too Many Requests", http.StatusTooManyRequests)
			return
		}
		h.serveAccount(w, r, host)
	case ChallengeHost:
		writeHTML(w, http.StatusOK, static("challenge.html"))
	case UnavailableHost:
		http.Error(w, "Service Unavailable", http.StatusServiceUnavailable)
	case DroppedHost:
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	case ForeignRedirectHost:
		http.Redirect(w, r, "https://"+ForeignHost+"/music", http.StatusFound)
	case "bandcamp.com":
		if "https://bandcamp.com"+r.URL.Path == FanURL {
			writeHTML(w, http.StatusOK, static("fan.html"))
			return
		}
		writeHTML(w, http.StatusNotFound, static("notfound.html"))
	default:
		h.serveAccount(w, r, host)
	}
}

func (h *handler) serveAccount(w http.ResponseWriter, r *http.Request, host string) {
	a := accounts[host]
	if a == nil {
		writeHTML(w, http.StatusNotFound, static("notfound.html"))
		return
	}
	path := strings.TrimRight(r.URL.Path, "/")
	if path == "" || path == "/music" {
		if a.single {
			http.Redirect(w, r, a.grid[0].URL(), http.StatusFound)
			return
		}
		writeHTML(w, http.StatusOK, renderMusic(a, host))
		return
	}
	for _, rel := range append(append([]*Release{}, a.grid...), a.extra...) {
		if rel.host == a && path == "/"+rel.typ+"/"+rel.slug {
			writeHTML(w, http.StatusOK, renderRelease(rel, host, h.now()))
			return
		}
	}
	writeHTML(w, http.StatusNotFound, static("notfound.html"))
}

func writeHTML(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}
