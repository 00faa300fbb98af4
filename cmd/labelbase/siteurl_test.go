package main

import (
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// dev's SITE_URL is the address it listens on: docs/development.md's own
// LISTEN_ADDR example must give links to 127.0.0.1:8099, not localhost:8080.
func TestDevSiteURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ listen, site string }{
		{":8080", "http://localhost:8080"},
		{"0.0.0.0:9000", "http://localhost:9000"},
		{"[::]:9000", "http://localhost:9000"},
		{"127.0.0.1:8099", "http://127.0.0.1:8099"},
		{"localhost:8123", "http://localhost:8123"},
		{"[::1]:9001", "http://[::1]:9001"},
	}
	for _, tt := range tests {
		site, listen, err := devSiteURL(tt.listen)
		if err != nil || site != tt.site || listen != tt.listen {
			t.Errorf("devSiteURL(%q) = %q, %q, %v; want %q", tt.listen, site, listen, err, tt.site)
		}
	}
	if _, _, err := devSiteURL("8080"); err == nil {
		t.Error("a LISTEN_ADDR without a port was accepted")
	}
}

// A kernel-chosen port is resolved before the gateway starts, and the
// listen address then names it, so SITE_URL and the listener agree.
func TestDevSiteURLPortZero(t *testing.T) {
	t.Parallel()
	site, listen, err := devSiteURL("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^http://127\.0\.0\.1:(\d+)$`).FindStringSubmatch(site)
	if m == nil || m[1] == "0" || listen != "127.0.0.1:"+m[1] {
		t.Fatalf("devSiteURL(127.0.0.1:0) = %q, %q", site, listen)
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatalf("the resolved address %s cannot be bound: %v", listen, err)
	}
	l.Close()
}

func TestSiteURLMismatch(t *testing.T) {
	t.Parallel()
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	tests := []struct {
		site   string
		listen net.Addr
		warn   bool
	}{
		{"http://localhost:8080", tcp("", 8080), false},
		{"http://localhost:8080", tcp("127.0.0.1", 8080), false},
		{"http://localhost:8080", tcp("127.0.0.1", 8099), true}, // docs/development.md's example with the default SITE_URL
		{"http://127.0.0.1:8099", tcp("127.0.0.1", 8099), false},
		{"http://192.168.1.20:8080", tcp("127.0.0.1", 8080), true},
		{"http://192.168.1.20:8080", tcp("::", 8080), false},
		{"http://localhost", tcp("", 80), false},
		{"https://localhost", tcp("", 8443), true},
		{"https://labels.example.com", tcp("", 8080), false}, // a public name fronts a proxy
	}
	for _, tt := range tests {
		got := siteURLMismatch(tt.site, tt.listen)
		if (got != "") != tt.warn || (tt.warn && !strings.Contains(got, tt.site)) {
			t.Errorf("siteURLMismatch(%q, %v) = %q, want warning %v", tt.site, tt.listen, got, tt.warn)
		}
	}
}

// Next to a running dev (no DATABASE_URL), reset-password links point at
// the address that dev answers on, which it keeps in its state file.
func TestUserResetPasswordNextToDev(t *testing.T) {
	db := pgtest.New(t)
	dir := t.TempDir()
	t.Setenv("LABELBASE_DATA_DIR", dir)
	t.Setenv("DATABASE_URL", "")
	t.Setenv("SITE_URL", "")
	t.Setenv("BCRYPT_COST", "4")
	// What a running dev leaves for the CLI (devfind.go); this process
	// stands in for the dev, so its pid is alive.
	state := &devState{PID: os.Getpid(), DatabaseURL: db.URL, JWTSecret: "a-test-secret-of-at-least-32-characters", SiteURL: "http://127.0.0.1:8099"}
	if err := state.write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "", "user", "create", "grace@example.com", "--password", "password1"); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "", "user", "reset-password", "grace@example.com")
	link := regexp.MustCompile(`http://127\.0\.0\.1:8099/auth/v1/verify\?\S+`).FindString(out)
	if err != nil || link == "" || !strings.Contains(out, "valid for 1 hour") {
		t.Fatalf("reset-password next to dev: %q, %v", out, err)
	}
	u, _ := url.Parse(link)
	if got := u.Query().Get("redirect_to"); got != "http://127.0.0.1:8099" {
		t.Errorf("redirect_to %q, want the dev's address", got)
	}
}
