package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// pooledEnv points a gateway at PgBouncer in transaction mode: the owner
// and REST pools through it, sessions on the direct URL.
func pooledEnv(s *pgtest.ReplicaSet, bouncerOwner, bouncerREST string, prepared bool) map[string]string {
	return map[string]string{
		"DATABASE_URL":                 bouncerOwner,
		"REST_DATABASE_URL":            bouncerREST,
		"DATABASE_DIRECT_URL":          s.URL(),
		"DB_PREPARED_STATEMENTS":       fmt.Sprint(prepared),
		"DB_POOL_SIZE":                 "6",
		"INVITE_REQUIRED":              "false",
		"RATE_LIMIT_BURST":             "10000",
		"RATE_LIMIT_SIGNUP_PER_5MIN":   "10000",
		"RATE_LIMIT_TOKEN_PER_HOUR":    "100000",
		"REFRESH_TOKEN_REUSE_INTERVAL": "0",
	}
}

// TestThroughPgBouncer runs sign-ups, sign-ins, refreshes and REST writes
// and reads (as the signed-in user, under RLS) from eight clients at once
// through Debian's PgBouncer in transaction mode with two server
// connections, so that consecutive transactions of one client land on
// different backends. With DB_PREPARED_STATEMENTS=false nothing may fail.
func TestThroughPgBouncer(t *testing.T) {
	s := pgtest.SharedReplicaSet(t)
	b := s.Bouncer(t, 2)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, `
		CREATE TABLE public.pooled_notes (id bigserial PRIMARY KEY,
		  owner uuid NOT NULL DEFAULT auth.uid(), body text NOT NULL);
		ALTER TABLE public.pooled_notes ENABLE ROW LEVEL SECURITY;
		CREATE POLICY own ON public.pooled_notes TO authenticated USING (owner = auth.uid()) WITH CHECK (owner = auth.uid());
		GRANT SELECT, INSERT ON public.pooled_notes TO authenticated;
		GRANT USAGE ON SEQUENCE public.pooled_notes_id_seq TO authenticated;`)
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := startGateway(t, "", pooledEnv(s, b.URL("owner"), b.URL("rest"), false), false, nil)

	const clients, rounds = 8, 3
	var wg sync.WaitGroup
	errs := make(chan string, clients*rounds*5)
	for w := range clients {
		wg.Go(func() {
			for r := range rounds {
				if msg := pooledRound(t, g, fmt.Sprintf("pooled-%d-%d@example.test", w, r)); msg != "" {
					errs <- msg
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}

// pooledRound signs a new user up, in and refreshes, writes two rows as
// that user and reads them back; it returns what went wrong, if anything.
func pooledRound(t *testing.T, g *gateway, email string) string {
	creds := jsonBody(map[string]string{"email": email, "password": "pooled password 1"})
	if status, body := g.call(t, "POST", "/auth/v1/signup", creds); status != 200 {
		return fmt.Sprintf("sign-up %s: %d %s", email, status, body)
	}
	status, tk := g.grant(t, "password", creds)
	if status != 200 {
		return fmt.Sprintf("sign-in %s: %d %+v", email, status, tk)
	}
	status, tk = g.grant(t, "refresh_token", jsonBody(map[string]string{"refresh_token": tk.RefreshToken}))
	if status != 200 {
		return fmt.Sprintf("refresh %s: %d %+v", email, status, tk)
	}
	bearer := "Bearer " + tk.AccessToken
	for i := range 2 {
		if status, body := g.call(t, "POST", "/rest/v1/pooled_notes", fmt.Sprintf(`{"body":"n%d"}`, i), "Authorization", bearer); status != 201 {
			return fmt.Sprintf("insert as %s: %d %s", email, status, body)
		}
	}
	status, body := g.call(t, "GET", "/rest/v1/pooled_notes?select=body&order=id", "", "Authorization", bearer)
	var compact bytes.Buffer
	_ = json.Compact(&compact, body)
	if status != 200 || compact.String() != `[{"body":"n0"},{"body":"n1"}]` {
		return fmt.Sprintf("read as %s: %d %s", email, status, body)
	}
	return ""
}

// TestPoolerMisconfigurationsAreRefused: set-ups that would break
// silently behind a transaction pooler stop the gateway at start, saying
// why; and with prepared statements on, PgBouncer 1.18 does fail requests
// (the switch matters).
func TestPoolerMisconfigurationsAreRefused(t *testing.T) {
	s := pgtest.SharedReplicaSet(t)
	b := s.Bouncer(t, 2)
	base := pooledEnv(s, b.URL("owner"), b.URL("rest"), false)
	load := func(change map[string]string) (*config.Config, error) {
		vars := map[string]string{"JWT_SECRET": "gateways-secret-gateways-secret-0123456789", "CRAWL_DISABLED": "true"}
		for k, v := range base {
			vars[k] = v
		}
		for k, v := range change {
			vars[k] = v
		}
		return config.Load(func(k string) string { return vars[k] })
	}

	t.Run("LISTEN through the pooler", func(t *testing.T) {
		cfg, err := load(map[string]string{"DATABASE_DIRECT_URL": ""})
		if err != nil {
			t.Fatal(err)
		}
		a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
		if err == nil {
			a.Close()
			t.Fatal("a gateway whose LISTEN goes through a transaction pooler started")
		}
		if !strings.Contains(err.Error(), "DATABASE_DIRECT_URL") {
			t.Fatalf("the refusal does not say what to do: %v", err)
		}
	})
	t.Run("REST pool without a login of its own", func(t *testing.T) {
		_, err := load(map[string]string{"REST_DATABASE_URL": ""})
		if err == nil || !strings.Contains(err.Error(), "REST_DATABASE_URL is required with DATABASE_DIRECT_URL") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("more connections than a replica allows", func(t *testing.T) {
		// Behind the pooler 20 gateways × 5 direct connections fit on the
		// primary (197 usable), but 20 × (DB_POOL_SIZE 10 + 1) do not fit
		// on the replica.
		cfg, err := load(map[string]string{"DB_GATEWAYS": "20", "DB_POOL_SIZE": "10",
			"DATABASE_REPLICA_URLS": s.On(s.Replicas[0])})
		if err != nil {
			t.Fatal(err)
		}
		a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
		if err == nil {
			a.Close()
			t.Fatal("a gateway whose replica cannot hold its pools started")
		}
		if !strings.Contains(err.Error(), "connection budget on replica") || !strings.Contains(err.Error(), "= 220") {
			t.Fatalf("the refusal does not say why: %v", err)
		}
	})
	t.Run("prepared statements through PgBouncer 1.18 fail", func(t *testing.T) {
		cfg, err := load(map[string]string{"DB_PREPARED_STATEMENTS": "true"})
		if err != nil {
			t.Fatal(err)
		}
		a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			return // refused while starting: the point is made
		}
		defer a.Close()
		var failed sync.WaitGroup
		var mu sync.Mutex
		bad := 0
		for range 8 {
			failed.Go(func() {
				for range 10 {
					var n int
					if err := a.Pools.Owner.QueryRow(context.Background(), "SELECT count(*) FROM auth.users WHERE email <> $1", "x").Scan(&n); err != nil {
						mu.Lock()
						bad++
						mu.Unlock()
					}
				}
			})
		}
		failed.Wait()
		if bad == 0 {
			t.Fatal("cached prepared statements never failed through a transaction pooler; does the test reach PgBouncer?")
		}
	})
}
