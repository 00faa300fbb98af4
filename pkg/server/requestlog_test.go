package server_test

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/server"
)

// A console server (RequestLog at Debug) writes no line per request at
// Info and one at Debug; a slow request is a Warn line either way; the
// zero value keeps the production access log at Info.
func TestRequestLogLevels(t *testing.T) {
	t.Parallel()
	cfg := configtest.New(t, nil)
	serveAt := func(logLevel slog.Level, policy server.RequestLog) string {
		var buf logtest.Buffer
		log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: logLevel}))
		e := server.New(server.Deps{Config: cfg, Log: log, RequestLog: policy, REST: func(g *echo.Group) {}})
		do(e, "GET", "/livez", nil)
		do(e, "GET", "/rest/v1/nothing", map[string]string{"apikey": cfg.AnonKey})
		return buf.String()
	}
	line := regexp.MustCompile(`(?m)^time=\S+ level=(\w+) msg="?([a-z ]+)"? .*path=(\S+) status=(\d+)`)
	levels := func(out string) []string {
		var got []string
		for _, m := range line.FindAllStringSubmatch(out, -1) {
			got = append(got, m[1]+" "+m[2]+" "+m[3]+" "+m[4])
		}
		return got
	}
	cases := []struct {
		name   string
		level  slog.Level
		policy server.RequestLog
		want   []string
	}{
		{"production", slog.LevelInfo, server.RequestLog{}, []string{"INFO request /livez 200", "INFO request /rest/v1/nothing 404"}},
		{"console at info", slog.LevelInfo, server.RequestLog{Level: slog.LevelDebug, Slow: time.Hour}, nil},
		{"console at debug", slog.LevelDebug, server.RequestLog{Level: slog.LevelDebug, Slow: time.Hour},
			[]string{"DEBUG request /livez 200", "DEBUG request /rest/v1/nothing 404"}},
		// Every request is slow at a threshold of 1ns.
		{"slow", slog.LevelInfo, server.RequestLog{Level: slog.LevelDebug, Slow: time.Nanosecond},
			[]string{"WARN slow request /livez 200", "WARN slow request /rest/v1/nothing 404"}},
	}
	for _, c := range cases {
		out := serveAt(c.level, c.policy)
		if got := levels(out); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: lines %q, want %q\n%s", c.name, got, c.want, out)
		}
	}
}

// The traffic summary counts what the request lines would have said,
// writes one line per window with requests, and none for an idle one.
func TestTrafficSummary(t *testing.T) {
	t.Parallel()
	cfg := configtest.New(t, nil)
	var buf logtest.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	traffic := server.NewTraffic()
	e := server.New(server.Deps{Config: cfg, Log: log, REST: func(g *echo.Group) {},
		RequestLog: server.RequestLog{Level: slog.LevelDebug, Traffic: traffic}})
	do(e, "GET", "/livez", nil)
	do(e, "GET", "/rest/v1/nothing", map[string]string{"apikey": cfg.AnonKey}) // 404
	do(e, "GET", "/rest/v1/nothing", nil)                                      // 401
	if buf.String() != "" {
		t.Fatalf("request lines at info:\n%s", buf.String())
	}
	if !traffic.LogSummary(log, time.Minute) {
		t.Fatal("no summary for three requests")
	}
	if !regexp.MustCompile(`level=INFO msg=traffic window=1m0s requests=3 client_errors=2 server_errors=0 bytes=\d+ slowest_ms=\d+\n$`).MatchString(buf.String()) {
		t.Fatalf("summary: %q", buf.String())
	}
	buf.Take()
	if traffic.LogSummary(log, time.Minute) || buf.String() != "" {
		t.Fatalf("an idle minute was summed up: %q", buf.String())
	}
}
