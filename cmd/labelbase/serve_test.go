package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestServeOperability starts `serve` as an operator would, with an admin
// listener, then probes it with `labelbase health` (liveness and
// readiness) and scrapes /metrics; `version` names the build. An admin
// address that cannot be bound stops the gateway with an error.
func TestServeOperability(t *testing.T) {
	db := pgtest.New(t)
	t.Setenv("DATABASE_URL", db.URL)
	t.Setenv("JWT_SECRET", "serve-test-secret-serve-test-secret-0123")
	t.Setenv("CRAWL_DISABLED", "true")
	t.Setenv("LISTEN_ADDR", "127.0.0.1:0")
	t.Setenv("ADMIN_LISTEN_ADDR", "127.0.0.1:0")

	logs := &logtest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	public := make(chan net.Addr, 1)
	go func() {
		cfg, err := loadConfig()
		if err != nil {
			done <- err
			return
		}
		done <- serve(ctx, cfg, newLogger(logs, "info", "json"), func(a net.Addr) { public <- a })
	}()
	var addr net.Addr
	select {
	case addr = <-public:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	// SITE_URL is left at its default (localhost:8080), which is not where
	// this gateway listens: serve says so at start, before it is ready.
	if want := `"level":"WARN","msg":"SITE_URL http://localhost:8080 is not the address the gateway listens on (http://` + addr.String() + `)`; !strings.Contains(logs.String(), want) {
		t.Errorf("no SITE_URL warning %s in the start-up logs:\n%s", want, logs.String())
	}

	t.Setenv("LISTEN_ADDR", addr.String())
	for _, args := range [][]string{{"health"}, {"health", "--ready"}} {
		var out bytes.Buffer
		want := "ok (http://" + addr.String() + "/livez)"
		if len(args) > 1 {
			want = "ok (http://" + addr.String() + "/readyz)"
		}
		if err := run(ctx, args, &out, &out); err != nil || strings.TrimSpace(out.String()) != want {
			t.Errorf("labelbase %s: %q, %v", strings.Join(args, " "), out.String(), err)
		}
	}
	var out bytes.Buffer
	if err := run(ctx, []string{"version"}, &out, &out); err != nil || !strings.HasPrefix(out.String(), "labelbase ") || !strings.Contains(out.String(), "go1.") {
		t.Errorf("labelbase version: %q, %v", out.String(), err)
	}

	// The admin listener's address is in its start-up line.
	var adminAddr string
	deadline := time.Now().Add(10 * time.Second)
	for adminAddr == "" && time.Now().Before(deadline) {
		if m := regexp.MustCompile(`"msg":"admin listener: /metrics","addr":"([^"]+)"`).FindStringSubmatch(logs.String()); m != nil {
			adminAddr = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if adminAddr == "" || adminAddr == addr.String() {
		t.Fatalf("admin listener %q (public %s); logs:\n%s", adminAddr, addr, logs.String())
	}
	res, err := http.Get("http://" + adminAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("admin /metrics: %d", res.StatusCode)
	}

	// A second gateway whose admin address is taken does not start.
	t.Setenv("LISTEN_ADDR", "127.0.0.1:0")
	t.Setenv("ADMIN_LISTEN_ADDR", adminAddr)
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	err = serve(ctx2, cfg, newLogger(&logtest.Buffer{}, "info", "json"), nil)
	if err == nil || !strings.Contains(err.Error(), "admin listener") {
		t.Errorf("serve with a taken admin address: %v", err)
	}
}

// serve raises the collector's target only when the operator has not set
// GOGC: the runtime's own variable wins, whatever its value.
func TestTuneGCLeavesAnOperatorsGOGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	unset := func(string) (string, bool) { return "", false }
	if !tuneGC(unset) {
		t.Fatal("GOGC unset: tuneGC reports it left the target")
	}
	if got := debug.SetGCPercent(100); got != gcPercent {
		t.Errorf("GOGC unset: target %d, want %d", got, gcPercent)
	}
	set := func(k string) (string, bool) { return "50", k == "GOGC" }
	if tuneGC(set) {
		t.Error("GOGC=50: tuneGC reports it set the target")
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=50: target changed to %d", got)
	}
}
