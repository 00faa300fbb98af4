package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// BenchmarkReplicaReads measures /rest/v1 read throughput with the primary
// alone and with one and two replicas serving reads (docs/scaling.md). The
// read is a GET rpc whose SQL does a fixed amount of work, so that the
// database, not the gateway, is what is measured. All servers run on this
// machine and share its cores: the ratio shows the routing's overhead and
// spread, not what separate hosts would add.
//
//	go test -run '^$' -bench BenchmarkReplicaReads -benchtime 5s ./pkg/app
func BenchmarkReplicaReads(b *testing.B) {
	s := pgtest.SharedReplicaSet(b)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		b.Fatal(err)
	}
	_, err = c.Exec(ctx, `CREATE OR REPLACE FUNCTION public.bench_work() RETURNS bigint LANGUAGE sql STABLE
		AS 'SELECT sum(g) FROM generate_series(1, 50000) g';
		GRANT EXECUTE ON FUNCTION public.bench_work() TO anon`)
	c.Close(ctx)
	if err != nil {
		b.Fatal(err)
	}
	s.WaitReplayed(b)
	for n := range 3 {
		b.Run(fmt.Sprintf("replicas=%d", n), func(b *testing.B) {
			var urls []string
			for _, r := range s.Replicas[:n] {
				urls = append(urls, s.On(r))
			}
			g := startGatewayTB(b, s.URL(), map[string]string{"DATABASE_REPLICA_URLS": strings.Join(urls, ","), "DB_POOL_SIZE": "8"})
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest("GET", g.srv.URL+"/rest/v1/rpc/bench_work", nil)
					req.Header.Set("apikey", g.app.Config.AnonKey)
					res, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						b.Errorf("status %d", res.StatusCode)
						return
					}
				}
			})
		})
	}
}

// startGatewayTB is startGateway for benchmarks: the test settings plus
// env, no crawler, stopped at cleanup.
func startGatewayTB(tb testing.TB, databaseURL string, env map[string]string) *gateway {
	tb.Helper()
	vars := map[string]string{"DATABASE_URL": databaseURL, "JWT_SECRET": "gateways-secret-gateways-secret-0123456789",
		"CRAWL_DISABLED": "true", "RATE_LIMIT_BURST": "1000000"}
	for k, v := range env {
		vars[k] = v
	}
	cfg := configtest.New(tb, vars)
	a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	bg, stop := context.WithCancel(context.Background())
	a.StartBackground(bg, false)
	srv := httptest.NewServer(a.Handler)
	tb.Cleanup(func() { srv.Close(); stop(); a.Close() })
	<-a.Router.Checked()
	return &gateway{app: a, srv: srv}
}
