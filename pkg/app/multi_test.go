package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestTwoGatewaysOneDatabase runs two gateways on one database, as behind
// a load balancer, and checks that what one gateway does holds on the
// other: a session signed in on A refreshes on B; reusing the rotated
// token on A revokes the session on both; the token rate limit is one
// budget over both; a schema reload reaches both; of two daily crawlers,
// one runs the pass.
func TestTwoGatewaysOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two gateways")
	}
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	pgtest.CreateUser(t, db.Pool, "two@example.test", "correct horse battery")
	bandcamp := httptest.NewServer(http.NotFoundHandler()) // no label is queued: nothing is fetched
	t.Cleanup(bandcamp.Close)
	env := map[string]string{
		"REFRESH_TOKEN_REUSE_INTERVAL": "0",
		"RATE_LIMIT_BURST":             "8",
		"RATE_LIMIT_TOKEN_PER_HOUR":    "1",
		"CRAWL_DISABLED":               "false",
		"CRAWL_CATCH_UP_DELAY":         "1s",
		"BANDCAMP_UPSTREAM":            bandcamp.URL,
	}
	a := startGateway(t, db.URL, env, true, nil)
	b := startGateway(t, db.URL, env, true, nil)

	// Sessions: sign in on A, refresh on B.
	status, first := a.grant(t, "password", jsonBody(map[string]string{"email": "two@example.test", "password": "correct horse battery"}))
	if status != 200 {
		t.Fatalf("sign-in on A: %d %+v", status, first)
	}
	status, second := b.grant(t, "refresh_token", jsonBody(map[string]string{"refresh_token": first.RefreshToken}))
	if status != 200 || second.RefreshToken == first.RefreshToken {
		t.Fatalf("refresh on B: %d %+v", status, second)
	}
	// Reuse detection: the rotated-away token, replayed on A, revokes the
	// session; the token B issued is dead on B too.
	if status, tk := a.grant(t, "refresh_token", jsonBody(map[string]string{"refresh_token": first.RefreshToken})); status != 400 || tk.Code != "refresh_token_already_used" {
		t.Fatalf("reuse on A: %d %+v", status, tk)
	}
	if status, tk := b.grant(t, "refresh_token", jsonBody(map[string]string{"refresh_token": second.RefreshToken})); status != 400 || tk.Code != "refresh_token_already_used" {
		t.Fatalf("the session's newest token on B after the reuse: %d %+v", status, tk)
	}
	if got := counter(t, a.app.Metrics.Registry(), "labelbase_auth_events_total", map[string]string{"grant": "refresh_token", "outcome": "reuse_detected"}); got != 1 {
		t.Errorf("A counted %v reuse detections, want 1", got)
	}

	// Rate limit: four /token requests so far of a burst of 8 shared by
	// both; alternate until refused.
	var refusedAt int
	for i := 5; i <= 12 && refusedAt == 0; i++ {
		g := []*gateway{a, b}[i%2]
		status, _ := g.grant(t, "password", jsonBody(map[string]string{"email": "two@example.test", "password": "wrong"}))
		switch status {
		case 400:
		case 429:
			refusedAt = i
		default:
			t.Fatalf("request %d: status %d", i, status)
		}
	}
	if refusedAt != 9 {
		t.Fatalf("the shared burst of 8 refused request %d, want 9 (per-gateway buckets would allow 16)", refusedAt)
	}

	// Schema reload: a table created and announced once is served by both.
	if _, err := db.Pool.Exec(ctx, `CREATE TABLE public.shared_notes (id int PRIMARY KEY);
		GRANT SELECT ON public.shared_notes TO anon; NOTIFY pgrst, 'reload schema'`); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*gateway{a, b} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			status, body := g.call(t, "GET", "/rest/v1/shared_notes", "")
			if status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never served the new table: %d %s", g.srv.URL, status, body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// Crawling: both gateways catch up after a second; one pass runs, the
	// other gateway skips (it finds the lock taken or the pass done).
	var succeeded int
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM private.ingest_runs WHERE status = 'succeeded'`).Scan(&succeeded); err != nil {
			t.Fatal(err)
		}
		skipped := counter(t, a.app.Metrics.Registry(), "labelbase_crawl_runs_total", map[string]string{"outcome": "skipped"}) +
			counter(t, b.app.Metrics.Registry(), "labelbase_crawl_runs_total", map[string]string{"outcome": "skipped"})
		ran := counter(t, a.app.Metrics.Registry(), "labelbase_crawl_runs_total", map[string]string{"outcome": "succeeded"}) +
			counter(t, b.app.Metrics.Registry(), "labelbase_crawl_runs_total", map[string]string{"outcome": "succeeded"})
		if ran+skipped >= 2 {
			if succeeded != 1 || ran != 1 || skipped != 1 {
				t.Fatalf("%d passes recorded, gateways report %v succeeded and %v skipped; want one pass", succeeded, ran, skipped)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s: %d passes recorded, gateways report %v succeeded, %v skipped", succeeded, ran, skipped)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
