package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// startDirectGateway starts a second gateway for TestReplicaLossAndFailover
// on the same multi-host URL, whose sessions (LISTEN, the crawler's lock)
// use DATABASE_DIRECT_URL, multi-host too, as behind a pooler. It crawls
// (catching up a second after start, against a Bandcamp that has nothing)
// and allows three sign-ups, so that the test can show that the crawler's
// leadership and the rate limits carry on on the promoted primary.
func startDirectGateway(t *testing.T, s *pgtest.ReplicaSet, multi string) *gateway {
	t.Helper()
	bandcamp := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(bandcamp.Close)
	u, err := url.Parse(multi)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", "labelbase-direct")
	u.RawQuery = q.Encode()
	return startGateway(t, multi, map[string]string{
		"DATABASE_DIRECT_URL":        u.String(),
		"REST_DATABASE_URL":          s.AsAuthenticator(multi),
		"CRAWL_DISABLED":             "false",
		"CRAWL_CATCH_UP_DELAY":       "1s",
		"BANDCAMP_UPSTREAM":          bandcamp.URL,
		"INVITE_REQUIRED":            "false",
		"RATE_LIMIT_BURST":           "3",
		"RATE_LIMIT_SIGNUP_PER_5MIN": "1",
	}, true, nil)
}

// signUp signs a new address up on g, waiting out 503s (a failover in
// progress) for up to 30 s; it returns the status.
func signUp(t *testing.T, g *gateway, n int) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, _ := g.call(t, "POST", "/auth/v1/signup",
			jsonBody(map[string]string{"email": fmt.Sprintf("limited-%d@example.test", n), "password": "limited password 1"}))
		if status != 503 || time.Now().After(deadline) {
			return status
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// succeededPasses counts the crawler's succeeded passes on the server at u.
func succeededPasses(t *testing.T, u string) int {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var n int
	if err := c.QueryRow(ctx, `SELECT count(*) FROM private.ingest_runs WHERE status = 'succeeded'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// waitPasses waits until the server at u records more than n succeeded
// passes.
func waitPasses(t *testing.T, u string, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for succeededPasses(t, u) <= n {
		if time.Now().After(deadline) {
			t.Fatalf("no crawler pass succeeded within %v (still %d)", within, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// crawlerCarriesOn asks the new primary at u for a pass, as an admin's
// "crawl now" does, and waits for the crawler to take its lock there and
// run it (the scheduler looks for requests every 10 s).
func crawlerCarriesOn(t *testing.T, u string) {
	t.Helper()
	before := succeededPasses(t, u)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `INSERT INTO private.crawl_requests (requested_by) VALUES ('failover test')`); err != nil {
		t.Fatal(err)
	}
	waitPasses(t, u, before, 40*time.Second)
}

// waitServes waits until g serves path with 200.
func waitServes(t *testing.T, g *gateway, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		status, body := g.call(t, "GET", path, "")
		if status == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d %s after %v", path, status, body, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
