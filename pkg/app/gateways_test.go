package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config/configtest"
)

// gateway is one assembled gateway behind a test server.
type gateway struct {
	app *app.App
	srv *httptest.Server
}

// startGateway assembles a gateway on databaseURL with the test settings
// plus env, runs its background work (crawling when crawl is set) and
// stops it at cleanup. It returns once the gateway listens for schema
// reloads. log may be nil (discarded).
func startGateway(t *testing.T, databaseURL string, env map[string]string, crawl bool, log *slog.Logger) *gateway {
	t.Helper()
	vars := map[string]string{
		"DATABASE_URL":   databaseURL,
		"JWT_SECRET":     "gateways-secret-gateways-secret-0123456789",
		"BCRYPT_COST":    "4",
		"CRAWL_DISABLED": "true",
		"DB_POOL_SIZE":   "4",
	}
	for k, v := range env {
		vars[k] = v
	}
	cfg := configtest.New(t, vars)
	ctx := context.Background()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	bg, stop := context.WithCancel(ctx)
	a.StartBackground(bg, crawl)
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(func() { srv.Close(); stop(); a.Close() })
	select {
	case <-a.REST.Listening():
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway never subscribed to schema reloads")
	}
	return &gateway{app: a, srv: srv}
}

// call sends one request with the anon key and returns status and body.
func (g *gateway) call(t *testing.T, method, path, body string, header ...string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, g.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", g.app.Config.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

// tokens is the part of a /token answer these tests read.
type tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Code         string `json:"error_code"`
}

func (g *gateway) grant(t *testing.T, grantType, body string) (int, tokens) {
	t.Helper()
	status, b := g.call(t, "POST", "/auth/v1/token?grant_type="+grantType, body)
	var tk tokens
	if err := json.Unmarshal(b, &tk); err != nil {
		t.Fatalf("%s grant: %d %s", grantType, status, b)
	}
	return status, tk
}

// counter reads one series of a counter from a gateway's registry (0 when
// it has no such series yet).
func counter(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue series
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func jsonBody(v any) string {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	return buf.String()
}
