// Package fakebandcamp is a fake Bandcamp for tests. It answers for many
// hosts on one local listener, routing by the Host header, which is how the
// crawler talks to it when BANDCAMP_UPSTREAM is set. Pages are rendered
// from the templates in testdata, shaped after reference/bandcamp.md; every
// label, artist and title in them is invented.
package fakebandcamp

import (
	"crypto/sha256"
	"encoding/hex"
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

// SetLayout serves host's /music page in layout (LayoutGrid, LayoutIndex,
// LayoutStub, LayoutUnknown); "" restores the account's own.
func (s *Server) SetLayout(host, layout string) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	s.h.layouts[host] = layout
}

// NotModified counts the 304 answers the fake gave.
func (s *Server) NotModified() int {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	return s.h.notModified
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
	now         func() time.Time
	mu          sync.Mutex
	requests    []Request
	hits        map[string]int
	overrides   map[string]http.Handler
	layouts     map[string]string
	notModified int
}

func newHandler() *handler {
	return &handler{now: time.Now, hits: map[string]int{}, overrides: map[string]http.Handler{}, layouts: map[string]string{}}
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
		h.mu.Lock()
		layout := h.layouts[host]
		h.mu.Unlock()
		if layout == "" {
			layout = a.layout
		}
		if layout == "" {
			layout = LayoutGrid
		}
		h.writePage(w, r, renderMusic(a, host, layout))
		return
	}
	for _, rel := range append(append([]*Release{}, a.grid...), a.extra...) {
		if rel.host == a && path == "/"+rel.typ+"/"+rel.slug {
			h.writePage(w, r, renderRelease(rel, host, h.now()))
			return
		}
	}
	writeHTML(w, http.StatusNotFound, static("notfound.html"))
}

// writePage answers 200 with an ETag made from the body, or 304 to a
// request whose If-None-Match names it: a conditional request as HTTP
// caches make them. Whether Bandcamp itself honours them is not known; the
// crawler works either way.
func (h *handler) writePage(w http.ResponseWriter, r *http.Request, body []byte) {
	sum := sha256.Sum256(body)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		h.mu.Lock()
		h.notModified++
		h.mu.Unlock()
		w.WriteHeader(http.StatusNotModified)
		return
	}
	writeHTML(w, http.StatusOK, body)
}

func writeHTML(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}
