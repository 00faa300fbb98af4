package app_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgcluster"
)

// TestWritesSurviveDatabaseRestarts runs bounded concurrent writers
// through /rest/v1 while the database restarts, first with pg_ctl's fast
// mode and then with immediate mode (a crash), on a durable cluster of its
// own. Every acknowledged write must be in the table afterwards; no answer
// may be a 5xx other than 503 with Retry-After; and across the fast
// restart, which is shorter than DB_RETRY_WINDOW, no request may fail.
func TestWritesSurviveDatabaseRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a PostgreSQL cluster")
	}
	ctx := context.Background()
	// Not t.TempDir(): as root the server runs as another user, who must be
	// able to enter every directory above its data.
	dir, err := os.MkdirTemp("", "labelbase-fault-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Durable (not Fast): an immediate shutdown must not lose a commit the
	// gateway acknowledged.
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "pg")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	admin, err := pgx.Connect(ctx, cluster.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE faults"); err != nil {
		t.Fatal(err)
	}
	admin.Close(ctx)
	url := cluster.URL("faults")
	m, err := migrate.New(url)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	m.Close()
	owner, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Exec(ctx, `CREATE TABLE public.acks (id int PRIMARY KEY, writer int NOT NULL);
		GRANT SELECT, INSERT ON public.acks TO anon`); err != nil {
		t.Fatal(err)
	}
	owner.Close(ctx)

	cfg := configtest.New(t, map[string]string{
		"DATABASE_URL": url, "JWT_SECRET": "fault-test-secret-fault-test-secret-0123",
		"CRAWL_DISABLED": "true", "DB_POOL_SIZE": "4", "DB_RETRY_WINDOW": "15s",
	})
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	bg, stopBG := context.WithCancel(ctx)
	a.StartBackground(bg, false)
	t.Cleanup(func() { stopBG(); a.Close() })
	srv := httptest.NewServer(a.Handler)
	t.Cleanup(srv.Close)

	type outcome struct {
		status     int
		retryAfter string
		body       string
	}
	var (
		mu       sync.Mutex
		acked    []int
		failures []outcome
		next     atomic.Int64
		phase    atomic.Value // "fast" or "immediate": which restart a failure belongs to
	)
	phase.Store("fast")
	failuresIn := map[string]int{}
	write := func(writer int) {
		id := int(next.Add(1))
		req, _ := http.NewRequest("POST", srv.URL+"/rest/v1/acks", strings.NewReader(fmt.Sprintf(`{"id":%d,"writer":%d}`, id, writer)))
		req.Header.Set("apikey", cfg.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		p := phase.Load().(string)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Errorf("writer %d: %v", writer, err)
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		mu.Lock()
		defer mu.Unlock()
		if res.StatusCode == http.StatusCreated {
			acked = append(acked, id)
			return
		}
		failures = append(failures, outcome{res.StatusCode, res.Header.Get("Retry-After"), string(body)})
		failuresIn[p]++
	}

	run := func(mode string) {
		t.Helper()
		phase.Store(mode)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
						write(w)
					}
				}
			}(w)
		}
		time.Sleep(300 * time.Millisecond)
		if err := cluster.Restart(ctx, mode); err != nil {
			t.Error(err)
		}
		time.Sleep(500 * time.Millisecond) // writes keep going after the restart
		close(stop)
		wg.Wait()
	}
	run("fast")
	run("immediate")

	mu.Lock()
	defer mu.Unlock()
	if len(acked) < 50 {
		t.Fatalf("only %d writes were acknowledged; the test did not exercise the gateway", len(acked))
	}
	for _, f := range failures {
		if f.status >= 500 && (f.status != http.StatusServiceUnavailable || f.retryAfter == "") {
			t.Errorf("a write failed with %d (Retry-After %q): %s", f.status, f.retryAfter, f.body)
		}
		if f.status < 500 {
			t.Errorf("a write was refused with %d: %s", f.status, f.body)
		}
	}
	if n := failuresIn["fast"]; n != 0 {
		t.Errorf("%d writes failed across a fast restart shorter than DB_RETRY_WINDOW", n)
	}
	check, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close(ctx)
	var missing int
	if err := check.QueryRow(ctx, `SELECT count(*) FROM unnest($1::int[]) a(id)
		WHERE NOT EXISTS (SELECT 1 FROM public.acks k WHERE k.id = a.id)`, acked).Scan(&missing); err != nil {
		t.Fatal(err)
	}
	if missing != 0 {
		t.Errorf("%d of %d acknowledged writes are missing after the restarts", missing, len(acked))
	}
	t.Logf("%d writes acknowledged, %d answered 503", len(acked), len(failures))
}
