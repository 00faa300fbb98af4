package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/fetch/fetchtest"
)

// get fetches a Bandcamp URL through upstream, without real sleeps.
func get(t *testing.T, upstream string) error {
	t.Helper()
	clock := fetchtest.NewClock(time.Now())
	c, err := New(Options{Upstream: upstream, MaxAttempts: 2, Sleep: clock.Sleep, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "https://somelabel.bandcamp.com/music")
	return err
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	// Connection refused: nothing listens on the port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	if err := get(t, closed); !Unreachable(err) {
		t.Errorf("connection refused: Unreachable(%v) = false", err)
	}

	// A TLS handshake that fails: the upstream's certificate is not trusted.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	if err := get(t, tlsSrv.URL); err == nil || !Unreachable(err) {
		t.Errorf("untrusted certificate: Unreachable(%v) = false", err)
	}

	// Answers, even unwelcome ones, are not network failures.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	if err := get(t, srv.URL); err != nil || Unreachable(err) {
		t.Errorf("a 503 answer: err %v, Unreachable %v", err, Unreachable(err))
	}

	// A resolver failure, as the dialer reports it, wrapped as Get wraps it.
	dns := fmt.Errorf("fetch: GET x: %w", &net.DNSError{Err: "no such host", Name: "somelabel.bandcamp.com", IsNotFound: true})
	if !Unreachable(dns) {
		t.Error("a DNS failure is not Unreachable")
	}
	// The address guard's refusal comes wrapped in a *net.OpError; it is
	// still a refusal of the destination, not a network failure.
	guarded := &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%w: 10.0.0.1 is not a public address", ErrDisallowed)}
	if Unreachable(guarded) {
		t.Error("a guarded address counts as unreachable")
	}
	for _, err := range []error{nil, ErrDisallowed, ErrTooLarge, ErrBlocked, context.Canceled, errors.New("parse error"),
		fmt.Errorf("wrapped: %w", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"})} {
		want := err != nil && errors.As(err, new(tls.RecordHeaderError))
		if got := Unreachable(err); got != want {
			t.Errorf("Unreachable(%v) = %v, want %v", err, got, want)
		}
	}
}
