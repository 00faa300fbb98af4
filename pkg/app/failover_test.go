package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// outcomes tallies answers under load: the ones that succeeded, the 503s
// with Retry-After (allowed while there is no primary), and anything else
// (never allowed).
type outcomes struct {
	mu      sync.Mutex
	ok, u   int
	bad     []string
	firstOK time.Time // first success after mark
	mark    time.Time
}

func (o *outcomes) add(status int, hdr http.Header, body string, want int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case status == want:
		o.ok++
		if !o.mark.IsZero() && o.firstOK.IsZero() {
			o.firstOK = time.Now()
		}
	case status == 503 && hdr.Get("Retry-After") != "":
		o.u++
	default:
		if len(o.bad) < 10 {
			o.bad = append(o.bad, fmt.Sprintf("%d %s", status, body))
		}
	}
}

func (o *outcomes) snapshot() (ok, unavailable int, bad []string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.ok, o.u, append([]string(nil), o.bad...)
}

// TestReplicaLossAndFailover runs readers and writers through a gateway
// on a primary with two replicas. A replica killed under load fails no
// request, is out of rotation within 2 s, and is back in rotation once it
// runs again. Then the primary is killed and a replica promoted
// (pg_promote()): writes succeed again within 30 s of the promotion
// without restarting the gateway, every answer in between is a success
// or a 503 with Retry-After (never a 500), and on the new primary sign-in
// and refresh work, the sign-up rate limit refuses again after its burst,
// and the crawler takes its lock and runs a pass. A second gateway, whose
// sessions use a multi-host DATABASE_DIRECT_URL, shows the same through
// the direct URL.
func TestReplicaLossAndFailover(t *testing.T) {
	s := pgtest.NewReplicaSet(t, 2)
	replicaSchema(t, s, "failover")
	pgtest.CreateUser(t, poolOn(t, s.URL()), "failover@example.test", "failover password")
	s.WaitReplayed(t)
	// libpq-style multi-host URL: the primary, then the replica to promote.
	u, _ := url.Parse(s.URL())
	u.Host = fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", s.Primary.Port(), s.Replicas[0].Port())
	q := u.Query()
	q.Set("target_session_attrs", "read-write")
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	g := startGateway(t, u.String(), map[string]string{
		"DATABASE_REPLICA_URLS":  s.On(s.Replicas[0]) + "," + s.On(s.Replicas[1]),
		"REPLICA_CHECK_INTERVAL": "200ms",
		"RATE_LIMIT_BURST":       "1000",
	}, false, nil)
	waitHealthy(t, g.app, 2, 10*time.Second)
	// The second gateway: its catch-up pass first, and two of its three
	// sign-ups, before anything fails.
	direct := startDirectGateway(t, s, u.String())
	waitPasses(t, s.URL(), 0, 20*time.Second)
	for n := range 2 {
		if status := signUp(t, direct, n); status != 200 {
			t.Fatalf("sign-up %d: %d", n, status)
		}
	}
	s.WaitReplayed(t)

	var reads, writes, signIns outcomes
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var seq atomic.Int64
	for range 3 {
		wg.Go(func() {
			for ctx.Err() == nil {
				st, hdr, body := send(t, http.DefaultClient, g, "GET", "/rest/v1/where_am_i_failover", "")
				reads.add(st, hdr, body, 200)
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				st, hdr, body := send(t, http.DefaultClient, g, "POST", "/rest/v1/notes_failover", fmt.Sprintf(`{"body":"w%d"}`, seq.Add(1)))
				writes.add(st, hdr, body, 201)
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	wg.Go(func() {
		creds := jsonBody(map[string]string{"email": "failover@example.test", "password": "failover password"})
		for ctx.Err() == nil {
			st, hdr, body := send(t, http.DefaultClient, g, "POST", "/auth/v1/token?grant_type=password", creds)
			signIns.add(st, hdr, body, 200)
			time.Sleep(50 * time.Millisecond)
		}
	})
	defer func() { stop(); wg.Wait() }()

	time.Sleep(500 * time.Millisecond)
	if err := s.Replicas[1].Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if st := g.app.Router.Replicas()[1].State(); st.Healthy {
		t.Fatalf("the killed replica is still in rotation after 2 s: %+v", st)
	}
	ok, unavailable, bad := reads.snapshot()
	wok, wunavailable, wbad := writes.snapshot()
	sok, sunavailable, sbad := signIns.snapshot()
	if unavailable+wunavailable+sunavailable != 0 || len(bad)+len(wbad)+len(sbad) != 0 || ok == 0 || wok == 0 || sok == 0 {
		t.Fatalf("a replica killed under load: reads %d ok, %d 503, other %v; writes %d ok, %d 503, other %v; sign-ins %d ok, %d 503, other %v",
			ok, unavailable, bad, wok, wunavailable, wbad, sok, sunavailable, sbad)
	}
	t.Logf("replica killed: %d reads and %d writes, none failed", ok, wok)
	if err := s.Replicas[1].StartAgain(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, g.app, 2, 15*time.Second)
	if _, _, bad := reads.snapshot(); len(bad) > 0 {
		t.Fatalf("reads failed while the replica came back: %v", bad)
	}

	if err := s.Primary.Kill(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	promoted := time.Now()
	for _, o := range []*outcomes{&writes, &signIns} {
		o.mu.Lock()
		o.mark = promoted
		o.mu.Unlock()
	}
	promote(t, s.On(s.Replicas[0]))
	deadline := promoted.Add(30 * time.Second)
	for name, o := range map[string]*outcomes{"writes": &writes, "sign-ins": &signIns} {
		for {
			o.mu.Lock()
			first := o.firstOK
			o.mu.Unlock()
			if !first.IsZero() {
				t.Logf("%s succeeded again %v after the promotion", name, first.Sub(promoted).Round(time.Millisecond))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no %s succeeded within 30 s of the promotion", name)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	time.Sleep(300 * time.Millisecond)
	stop()
	wg.Wait()
	_, ru, rbad := reads.snapshot()
	_, wu, wbad := writes.snapshot()
	_, su, sbad := signIns.snapshot()
	if len(rbad)+len(wbad)+len(sbad) > 0 {
		t.Fatalf("answers other than success or 503 + Retry-After: reads %v, writes %v, sign-ins %v", rbad, wbad, sbad)
	}
	t.Logf("during the failover: %d reads, %d writes and %d sign-ins answered 503 with Retry-After", ru, wu, su)

	// Sessions carry on: sign in and rotate the refresh token on the new
	// primary.
	status, tk := g.grant(t, "password", jsonBody(map[string]string{"email": "failover@example.test", "password": "failover password"}))
	if status != 200 {
		t.Fatalf("sign-in after failover: %d %+v", status, tk)
	}
	if status, tk2 := g.grant(t, "refresh_token", jsonBody(map[string]string{"refresh_token": tk.RefreshToken})); status != 200 || tk2.RefreshToken == tk.RefreshToken {
		t.Fatalf("refresh after failover: %d %+v", status, tk2)
	}

	// Rate limits carry on: auth.rate_limits is UNLOGGED, so the promoted
	// standby starts with full buckets (docs/scaling.md), and the limit
	// refuses again once the burst of three is spent.
	allowed := 0
	for n := 2; ; n++ {
		status := signUp(t, direct, n)
		if status == 429 {
			break
		}
		if status != 200 || allowed == 3 {
			t.Fatalf("sign-up %d after failover: %d with %d allowed already; want 429 after at most 3", n-1, status, allowed)
		}
		allowed++
	}
	t.Logf("after failover the sign-up limit allowed %d more and then refused", allowed)
	// The crawler's leadership carries on: its lock, on the direct URL,
	// is taken on the new primary.
	crawlerCarriesOn(t, s.On(s.Replicas[0]))

	// The schema-cache listeners follow the multi-host URLs (DATABASE_URL
	// on one gateway, DATABASE_DIRECT_URL on the other) to the new
	// primary: a table made there becomes readable.
	c, err := pgx.Connect(context.Background(), s.On(s.Replicas[0]))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), `CREATE TABLE public.after_failover (v int); INSERT INTO public.after_failover VALUES (1);
		GRANT SELECT ON public.after_failover TO anon; NOTIFY pgrst, 'reload schema'`); err != nil {
		t.Fatal(err)
	}
	waitServes(t, g, "/rest/v1/after_failover", 40*time.Second)
	waitServes(t, direct, "/rest/v1/after_failover", 40*time.Second)
}

func promote(t *testing.T, u string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var done bool
	if err := c.QueryRow(ctx, "SELECT pg_promote(true, 30)").Scan(&done); err != nil || !done {
		t.Fatalf("pg_promote: %v %v", done, err)
	}
}

// poolOn is a superuser pool on u, closed at cleanup.
func poolOn(t *testing.T, u string) *pgxpool.Pool {
	t.Helper()
	p, err := pgxpool.New(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}
