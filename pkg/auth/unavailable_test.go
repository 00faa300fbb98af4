package auth

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/server"
)

// With the database unreachable (here: a pool pointed at a closed port),
// /auth/v1 answers a GoTrue-shaped 503 with Retry-After, never a 500, and
// auth-js treats a 503 as retryable.
func TestDatabaseDownIs503(t *testing.T) {
	t.Parallel()
	e := setup(t, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	pool, err := pgxpool.New(context.Background(), "postgres://nobody:x@"+addr+"/none?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	api, err := New(Deps{Config: e.cfg, Pool: pool, Log: slog.New(slog.DiscardHandler), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.api = api
	e.h = server.New(server.Deps{Config: e.cfg, Log: slog.New(slog.DiscardHandler), Auth: api.Register})
	for _, r := range []req{
		{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": "m@example.com", "password": "password1"}},
		{method: "POST", path: "/token?grant_type=refresh_token", body: map[string]any{"refresh_token": "abc"}},
		{method: "POST", path: "/signup", body: map[string]any{"email": "n@example.com", "password": "password1", "data": map[string]any{"invite_code": "x"}}},
	} {
		res := e.do(r)
		res.expect(t, http.StatusServiceUnavailable, "unexpected_failure")
		if res.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s: 503 without Retry-After", r.method, r.path)
		}
	}
}
