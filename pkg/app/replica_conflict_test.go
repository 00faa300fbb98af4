package app_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestReadCancelledByRecoveryConflictRunsOnThePrimary: a GET running on a
// replica when replay needs the lock it holds is cancelled by PostgreSQL
// ("canceling statement due to conflict with recovery", 40001); the
// gateway runs it once more on the primary and the client gets its answer.
// The replica waits only 100 ms for conflicting queries
// (max_standby_streaming_delay), so the conflict comes at once; the
// gateway's log shows that it did happen.
func TestReadCancelledByRecoveryConflictRunsOnThePrimary(t *testing.T) {
	s := pgtest.SharedReplicaSet(t)
	ctx := context.Background()
	replica := s.Replicas[0]
	standbyDelay(t, s.On(replica), "100ms")

	primary, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close(ctx)
	// The function locks the table when its query is planned, then sleeps
	// while holding the lock.
	if _, err := primary.Exec(ctx, `
		CREATE TABLE public.conflict_t (v int); INSERT INTO public.conflict_t VALUES (1), (2);
		CREATE FUNCTION public.slow_conflict() RETURNS json LANGUAGE sql STABLE
		  AS $$ SELECT json_build_object('replica', pg_is_in_recovery(), 'n', count(*))
		        FROM public.conflict_t, pg_sleep(1.5) $$;
		GRANT SELECT ON public.conflict_t TO anon;
		GRANT EXECUTE ON FUNCTION public.slow_conflict() TO anon;`); err != nil {
		t.Fatal(err)
	}
	s.WaitReplayed(t)
	logs := &logtest.Buffer{}
	g := startGateway(t, s.URL(), map[string]string{
		"DATABASE_REPLICA_URLS":  s.On(replica),
		"REPLICA_CHECK_INTERVAL": "100ms",
	}, false, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})))
	waitHealthy(t, g.app, 1, 5*time.Second)

	type answer struct {
		status int
		body   []byte
	}
	done := make(chan answer, 1)
	go func() {
		status, body := g.call(t, "GET", "/rest/v1/rpc/slow_conflict", "")
		done <- answer{status, body}
	}()
	// The read is now sleeping on the replica with the table locked; an
	// ACCESS EXCLUSIVE lock on the primary is replayed there and must
	// cancel it.
	time.Sleep(500 * time.Millisecond)
	if _, err := primary.Exec(ctx, "BEGIN; LOCK TABLE public.conflict_t IN ACCESS EXCLUSIVE MODE; COMMIT"); err != nil {
		t.Fatal(err)
	}
	var a answer
	select {
	case a = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the read did not answer")
	}
	var got struct {
		Replica bool `json:"replica"`
		N       int  `json:"n"`
	}
	if a.status != 200 || json.Unmarshal(a.body, &got) != nil || got.N != 2 {
		t.Fatalf("a read cancelled by recovery on the replica answered %d %s", a.status, a.body)
	}
	if got.Replica {
		t.Fatalf("the answer came from the replica (%s): was the read ever cancelled?", a.body)
	}
	if l := logs.String(); !strings.Contains(l, "running it on the primary") || !strings.Contains(l, "conflict with recovery") {
		t.Fatalf("the read was never cancelled on the replica, so the test proves nothing; log:\n%s", l)
	}
}

// standbyDelay sets max_standby_streaming_delay on the replica at u until
// the test ends.
func standbyDelay(t *testing.T, u, delay string) {
	t.Helper()
	ctx := context.Background()
	set := func(sql string) {
		c, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT pg_reload_conf()"); err != nil {
			t.Fatal(err)
		}
	}
	set("ALTER SYSTEM SET max_standby_streaming_delay = '" + delay + "'")
	t.Cleanup(func() { set("ALTER SYSTEM RESET max_standby_streaming_delay") })
	time.Sleep(200 * time.Millisecond) // the reload reaches the startup process
}
