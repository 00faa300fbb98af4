package server_test

import (
	"log/slog"
	"regexp"
	"strconv"
	"testing"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/server"
)

// An error's access line counts the error body that was sent (issue #26
// item 8: it said bytes=0).
func TestAccessLogCountsErrorBodies(t *testing.T) {
	t.Parallel()
	cfg := configtest.New(t, nil)
	var buf logtest.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	e := server.New(server.Deps{Config: cfg, Log: log, REST: func(g *echo.Group) {}})
	w := do(e, "GET", "/rest/v1/nothing", map[string]string{"apikey": cfg.AnonKey})
	if w.Code != 404 || w.Body.Len() == 0 {
		t.Fatalf("%d %q", w.Code, w.Body)
	}
	m := regexp.MustCompile(`path=/rest/v1/nothing status=404 bytes=(\d+)`).FindStringSubmatch(buf.String())
	if m == nil {
		t.Fatalf("no access line:\n%s", buf.String())
	}
	if n, _ := strconv.Atoi(m[1]); n != w.Body.Len() {
		t.Errorf("bytes=%d, body %d bytes", n, w.Body.Len())
	}
}
