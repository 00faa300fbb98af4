package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/token"
)

const secret = "bench-secret-bench-secret-bench-secret-0123"

// statement is what the gateway sent to PostgreSQL for one request: the
// floors replay it, so both sides run exactly the same SQL.
type statement struct {
	sql    string
	args   [][]byte
	caller db.Caller
}

// gateway is the side under test: the whole app in process behind a real
// HTTP server, with a statement observer that keeps the last statement the
// app sent so each scenario's warm-up request can capture it.
type gateway struct {
	app       *app.App
	srv       *httptest.Server
	client    *http.Client
	anonKey   string
	memberTok string

	mu   sync.Mutex
	last statement
}

// startGateway configures the app as a deployment would (its REST pool
// o.PoolSize connections, crawling off) and signs the member's token.
func startGateway(ctx context.Context, o Options, url, user string, client *http.Client) (*gateway, error) {
	cfg, err := config.Load(func(k string) string {
		return map[string]string{
			"DATABASE_URL": url, "JWT_SECRET": secret, "CRAWL_DISABLED": "true",
			"DB_POOL_SIZE": fmt.Sprint(o.PoolSize), "LOG_LEVEL": "error",
		}[k]
	})
	if err != nil {
		return nil, err
	}
	g := &gateway{client: client, anonKey: cfg.AnonKey}
	g.app, err = app.New(ctx, cfg, o.Log, app.WithStatementObserver(g.observe))
	if err != nil {
		return nil, err
	}
	g.srv = httptest.NewServer(g.app.Handler)
	now := time.Now()
	g.memberTok, err = token.Sign(secret, jwt.MapClaims{"sub": user, "role": "authenticated", "aud": "authenticated",
		"iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix()})
	if err != nil {
		g.close()
		return nil, err
	}
	return g, nil
}

func (g *gateway) close() {
	g.srv.Close()
	g.app.Close()
}

// observe is the app's statement observer.
func (g *gateway) observe(sql string, args [][]byte, c db.Caller) {
	g.mu.Lock()
	g.last = statement{sql: sql, args: args, caller: c}
	g.mu.Unlock()
}

// capture sends the scenario's request once and records the statement the
// gateway sent for it in s.
func (g *gateway) capture(ctx context.Context, s *scenario) error {
	st, err := g.send(ctx, s)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", s.name, err)
	}
	if !s.ok(st) {
		return fmt.Errorf("bench: %s: status %d, want %d", s.name, st, s.status)
	}
	g.mu.Lock()
	s.sql, s.args, s.caller = g.last.sql, g.last.args, g.last.caller
	g.mu.Unlock()
	return nil
}

// op is one gateway request of the scenario, an error unless its status
// is the expected one.
func (g *gateway) op(ctx context.Context, s *scenario) func() error {
	return func() error {
		st, err := g.send(ctx, s)
		if err == nil && !s.ok(st) {
			err = fmt.Errorf("status %d", st)
		}
		return err
	}
}

// send makes the scenario's request as supabase-js would (apikey, the
// member's bearer token, JSON body, Prefer) and drains the answer.
func (g *gateway) send(ctx context.Context, s *scenario) (int, error) {
	var body io.Reader
	if s.body != "" {
		body = strings.NewReader(s.body)
	}
	req, err := http.NewRequestWithContext(ctx, s.method, g.srv.URL+s.path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("apikey", g.anonKey)
	if s.member {
		req.Header.Set("Authorization", "Bearer "+g.memberTok)
	}
	if s.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.prefer != "" {
		req.Header.Set("Prefer", s.prefer)
	}
	res, err := g.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, nil
}

// newClient is the one HTTP client of the gateway and the HTTP floors, so
// both pay the same client-side costs; it keeps a connection per worker.
func newClient(workers int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers * 2, MaxConnsPerHost: workers * 2}}
}
