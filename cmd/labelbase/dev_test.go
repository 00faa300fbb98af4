package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestListenURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{Port: 8080}, "http://localhost:8080"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://localhost:8080"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 41234}, "http://localhost:41234"},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8099}, "http://127.0.0.1:8099"},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 20), Port: 80}, "http://192.168.1.20:80"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 9000}, "http://[::1]:9000"},
	}
	for _, tt := range tests {
		if got := listenURL(tt.addr); got != tt.want {
			t.Errorf("listenURL(%v) = %q, want %q", tt.addr, got, tt.want)
		}
	}
}

// The banner's URL must be one that answers, for a specific address and a
// port the kernel picked (LISTEN_ADDR=127.0.0.1:0).
func TestDevBannerURLAnswers(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("here")) }),
		ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }() // ErrServerClosed at cleanup
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })

	var out strings.Builder
	devBanner(&out, l.Addr(), "INVITE-CODE", false)
	const prefix = "Labelbase is running: "
	var url string
	for _, line := range strings.Split(out.String(), "\n") {
		if u, ok := strings.CutPrefix(line, prefix); ok {
			url = u
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.Contains(out.String(), "INVITE-CODE") {
		t.Fatalf("banner:\n%s", out.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the banner's URL %s does not answer: %v", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s: %d", url, resp.StatusCode)
	}
}
