package realtime

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/realtime/bus"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

// TestSocketThroughAccessLog: the upgrade passes the server's access log
// and its line, written when the socket closes with status 101, is not
// reported as a slow request however long the socket lived.
func TestSocketThroughAccessLog(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	cfg := loadConfig(t, db.URL, nil)
	var out logtest.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := bus.New(db.Pool, db.URL, log)
	s := New(Deps{Config: cfg, Pool: db.Pool, Bus: b, Verifier: token.NewVerifier(testSecret, "", time.Now), Log: log})
	h := server.New(server.Deps{Config: cfg, Log: log, Realtime: s.Register,
		RequestLog: server.RequestLog{Level: slog.LevelDebug, Slow: 20 * time.Millisecond}})
	srv := httptest.NewServer(h)
	t.Cleanup(func() { srv.Close(); s.Close() })
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http")+"/realtime/v1/websocket?vsn=2.0.0&apikey="+cfg.AnonKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	_ = ws.Close(websocket.StatusNormalClosure, "")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "status=101") {
		if time.Now().After(deadline) {
			t.Fatalf("no access line for the socket:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Contains(out.String(), "slow request") {
		t.Fatalf("a long-lived socket was logged as slow:\n%s", out.String())
	}
}
