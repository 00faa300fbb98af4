package bench

import (
	"bytes"
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
	app *app.App
	srv *httptest.Server
	to  target

	mu   sync.Mutex
	last statement
}

// gatewaySettings are the settings every benchmarked gateway runs with,
// in process or as its own process: the benchmark's database and secret,
// its REST pool o.PoolSize connections, crawling off. extra adds to them.
func gatewaySettings(o Options, url string, extra map[string]string) map[string]string {
	m := map[string]string{
		"DATABASE_URL": url, "JWT_SECRET": secret, "CRAWL_DISABLED": "true",
		"DB_POOL_SIZE": fmt.Sprint(o.PoolSize),
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// startGateway configures the app as a deployment would (its REST pool
// o.PoolSize connections, crawling off) and signs the member's token.
func startGateway(ctx context.Context, o Options, url, user string, client *http.Client) (*gateway, error) {
	settings := gatewaySettings(o, url, map[string]string{"LOG_LEVEL": "error"})
	cfg, err := config.Load(func(k string) string { return settings[k] })
	if err != nil {
		return nil, err
	}
	g := &gateway{}
	g.app, err = app.New(ctx, cfg, o.Log, app.WithStatementObserver(g.observe))
	if err != nil {
		return nil, err
	}
	g.srv = httptest.NewServer(g.app.Handler)
	tok, err := memberToken(user)
	if err != nil {
		g.close()
		return nil, err
	}
	g.to = target{base: g.srv.URL, client: client, apikey: cfg.AnonKey, bearer: tok}
	return g, nil
}

// memberToken is the benchmark member's access token, as the gateway's
// /token would sign it, valid for a day: longer than any run.
func memberToken(user string) (string, error) {
	now := time.Now()
	return token.Sign(secret, jwt.MapClaims{"sub": user, "role": "authenticated", "aud": "authenticated",
		"iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix()})
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
	st, err := g.to.send(ctx, s, nil)
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
func (g *gateway) op(ctx context.Context, s *scenario) func() error { return g.to.op(ctx, s) }

// target is where one side's requests go and what they carry: the
// gateway gets supabase-js's apikey and, on member scenarios, the member's
// bearer token; a peer without either (pREST) gets neither header.
type target struct {
	base   string
	client *http.Client
	apikey string
	bearer string
}

// op is one request of the scenario, an error unless its status is the
// expected one.
func (t target) op(ctx context.Context, s *scenario) func() error {
	return func() error {
		st, err := t.send(ctx, s, nil)
		if err == nil && !s.ok(st) {
			err = fmt.Errorf("status %d", st)
		}
		return err
	}
}

// send makes the scenario's request as supabase-js would (apikey, the
// member's bearer token, JSON body, Prefer) and reads the answer into
// body, or drains it when body is nil (the measured path).
func (t target) send(ctx context.Context, s *scenario, body *bytes.Buffer) (int, error) {
	var in io.Reader
	if s.body != "" {
		in = strings.NewReader(s.body)
	}
	req, err := http.NewRequestWithContext(ctx, s.method, t.base+s.path, in)
	if err != nil {
		return 0, err
	}
	for _, h := range t.headers(s) {
		req.Header.Set(h[0], h[1])
	}
	res, err := t.client.Do(req)
	if err != nil {
		return 0, err
	}
	var out io.Writer = io.Discard
	if body != nil {
		out = body
	}
	_, err = io.Copy(out, res.Body)
	res.Body.Close()
	return res.StatusCode, err
}

// headers are the scenario's request headers for t, as supabase-js sends
// them: apikey, the member's bearer token, Content-Type, Prefer.
func (t target) headers(s *scenario) [][2]string {
	var h [][2]string
	if t.apikey != "" {
		h = append(h, [2]string{"apikey", t.apikey})
	}
	if s.member && t.bearer != "" {
		h = append(h, [2]string{"Authorization", "Bearer " + t.bearer})
	}
	if s.body != "" {
		h = append(h, [2]string{"Content-Type", "application/json"})
	}
	if s.prefer != "" {
		h = append(h, [2]string{"Prefer", s.prefer})
	}
	return h
}

// newClient is the one HTTP client of every side, so all pay the same
// client-side costs; it keeps a connection per worker. Go's transport asks
// for gzip by itself unless DisableCompression: only with gzip does it.
func newClient(workers int, gzip bool) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers * 2, MaxConnsPerHost: workers * 2,
		DisableCompression: !gzip}}
}
