package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/token"
)

// Options shape a run.
type Options struct {
	// DatabaseURL is an empty database to use; "" starts a throwaway
	// cluster.
	DatabaseURL string
	Dataset     Dataset
	// Workers are concurrent clients per side; PoolSize the connections
	// of the gateway's REST pool and of the floor's pool alike.
	Workers, PoolSize int
	// Rounds alternate gateway and floor phases of Phase each.
	Rounds int
	Phase  time.Duration
	// MaxOps bounds each phase's requests whatever the time.
	MaxOps int
	// Only runs the scenarios whose name contains it.
	Only string
	Out  io.Writer
	Log  *slog.Logger
}

// Defaults are the figures docs/performance.md records.
func Defaults() Options {
	return Options{
		Dataset: Dataset{Labels: 2000, ReleasesPerLabel: 50, Follows: 100},
		Workers: 16, PoolSize: 10, Rounds: 5, Phase: 2 * time.Second, MaxOps: 500000,
		Out: os.Stdout, Log: slog.New(slog.DiscardHandler),
	}
}

// Result is one scenario's figures.
//
// Floor is the floor: the gateway's exact statement, prepared, on
// connections whose role and claims were set once. The two other
// references split the gap between the gateway and that floor in two:
// HTTPFloor serves the same statement over HTTP (the same client, a bare
// net/http handler on the floor's pool), so gateway/HTTPFloor is what the
// gateway itself costs beyond any HTTP service of this SQL; SetupFloor
// sends the gateway's per-request setup statement (role, claims, request
// settings — what RLS with a different user per request needs) and the
// statement in one pipeline, without HTTP, so SetupFloor/Floor is what
// switching callers per transaction costs PostgreSQL. FairFloor is the
// limit of any HTTP API that enforces RLS on this SQL: a bare net/http
// handler that, per request, sets only the caller's role and claims (one
// set_config pair, no request headers or path) and runs the statement in
// the same pipeline, so gateway/FairFloor is what the gateway costs beyond
// what an RLS-enforcing service cannot avoid.
type Result struct {
	Name                  string
	Gateway, Floor        Side
	HTTPFloor, SetupFloor Side
	FairFloor             Side
}

// Ratio is gateway throughput over floor throughput.
func (r Result) Ratio() float64 { return ratio(r.Gateway, r.Floor) }

func ratio(a, b Side) float64 {
	if b.RPS == 0 {
		return 0
	}
	return a.RPS / b.RPS
}

// Side is one side's throughput and latency percentiles.
type Side struct {
	Ops           int
	RPS           float64
	P50, P95, P99 time.Duration
	// Self and Server are CPU per operation: this process (client plus
	// the side under test) and PostgreSQL (cpu.go).
	Self, Server time.Duration
}

// scenario is one request, and the SQL the gateway sent for it.
type scenario struct {
	name   string
	member bool
	method string
	path   string
	body   string
	prefer string
	status int
	// captured by the statement observer during the warm-up request
	sql    string
	args   [][]byte
	caller db.Caller
}

// ok says whether a status is the expected one; 0 expects any 2xx (an
// upsert answers 201 the first time and 200 after).
func (s *scenario) ok(status int) bool {
	if s.status == 0 {
		return status >= 200 && status < 300
	}
	return status == s.status
}

const secret = "bench-secret-bench-secret-bench-secret-0123"

// Run sets up the database and the gateway, then measures every scenario.
func Run(ctx context.Context, o Options) ([]Result, error) {
	url, stop := o.DatabaseURL, func() {}
	if url == "" {
		var err error
		if url, stop, err = startDatabase(ctx, o.Log); err != nil {
			return nil, err
		}
	} else if err := migrateUp(url); err != nil {
		return nil, err
	}
	defer stop()

	owner, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	defer owner.Close()
	fx, err := load(ctx, owner, o.Dataset)
	if err != nil {
		return nil, err
	}

	cfg, err := config.Load(func(k string) string {
		return map[string]string{
			"DATABASE_URL": url, "JWT_SECRET": secret, "CRAWL_DISABLED": "true",
			"DB_POOL_SIZE": fmt.Sprint(o.PoolSize), "LOG_LEVEL": "error",
		}[k]
	})
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var last struct {
		sql    string
		args   [][]byte
		caller db.Caller
	}
	a, err := app.New(ctx, cfg, o.Log, app.WithStatementObserver(func(sql string, args [][]byte, c db.Caller) {
		mu.Lock()
		last.sql, last.args, last.caller = sql, args, c
		mu.Unlock()
	}))
	if err != nil {
		return nil, err
	}
	defer a.Close()
	srv := httptest.NewServer(a.Handler)
	defer srv.Close()

	now := time.Now()
	memberTok, err := token.Sign(secret, jwt.MapClaims{"sub": fx.user, "role": "authenticated", "aud": "authenticated",
		"iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix()})
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Workers * 2, MaxConnsPerHost: o.Workers * 2}}
	get := func(url string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("http floor: status %d", res.StatusCode)
		}
		return nil
	}
	send := func(s *scenario) (int, error) {
		var body io.Reader
		if s.body != "" {
			body = strings.NewReader(s.body)
		}
		req, err := http.NewRequestWithContext(ctx, s.method, srv.URL+s.path, body)
		if err != nil {
			return 0, err
		}
		req.Header.Set("apikey", cfg.AnonKey)
		if s.member {
			req.Header.Set("Authorization", "Bearer "+memberTok)
		}
		if s.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if s.prefer != "" {
			req.Header.Set("Prefer", s.prefer)
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, nil
	}

	floors := map[bool]*pgxpool.Pool{}
	for _, member := range []bool{false, true} {
		p, err := floorPool(ctx, url, o.PoolSize, member, fx.user)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		floors[member] = p
	}

	// The setup floor switches role per transaction, as the gateway does,
	// so it logs in like the gateway's pool (the owner here) without a
	// session role.
	setupPool, err := pgxpool.New(ctx, url)
	if err != nil {
		return nil, err
	}
	defer setupPool.Close()

	// The HTTP floor: one bare handler that runs the current scenario's
	// statement on the floor's pool and writes its JSON body.
	var current atomic.Pointer[scenario]
	httpFloor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := current.Load()
		body, err := floorExec(r.Context(), floors[s.member], s.sql, s.args)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer httpFloor.Close()

	// The fair floor: the same bare handler, but each request switches to
	// the scenario's caller (role and claims only) in the statement's
	// pipeline, as any RLS-enforcing service must.
	fairFloor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := current.Load()
		body, err := fairExec(r.Context(), setupPool, s.caller, s.sql, s.args)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer fairFloor.Close()

	meter := newCPUMeter(ctx, owner)
	fmt.Fprintf(o.Out, "# gateway vs floor: %s\n", machine(ctx, owner))
	fmt.Fprintf(o.Out, "# %d workers per side, pool %d, %d rounds x %s per side, dataset %d+demo labels x %d releases\n\n",
		o.Workers, o.PoolSize, o.Rounds, o.Phase, o.Dataset.Labels, o.Dataset.ReleasesPerLabel)
	fmt.Fprintln(o.Out, "| scenario | gateway req/s | floor req/s | gateway/floor | gateway/HTTP floor | gateway/fair floor | setup floor/floor | gateway p50 / p95 / p99 | fair floor p50 / p95 / p99 | CPU µs/req, process + PostgreSQL: gateway / fair floor / floor |")
	fmt.Fprintln(o.Out, "|---|---:|---:|---:|---:|---:|---:|---|---|---|")
	var out []Result
	for _, s := range scenarios(fx) {
		if o.Only != "" && !strings.Contains(s.name, o.Only) {
			continue
		}
		// Warm-up: one request through the gateway captures its SQL.
		st, err := send(s)
		if err != nil {
			return nil, fmt.Errorf("bench: %s: %w", s.name, err)
		}
		if !s.ok(st) {
			return nil, fmt.Errorf("bench: %s: status %d, want %d", s.name, st, s.status)
		}
		mu.Lock()
		s.sql, s.args, s.caller = last.sql, last.args, last.caller
		mu.Unlock()
		current.Store(s)
		floor := floors[s.member]
		gwOp := func() error {
			st, err := send(s)
			if err == nil && !s.ok(st) {
				err = fmt.Errorf("status %d", st)
			}
			return err
		}
		floorOp := func() error { _, err := floorExec(ctx, floor, s.sql, s.args); return err }
		httpOp := func() error { return get(httpFloor.URL) }
		fairOp := func() error { return get(fairFloor.URL) }
		setupArgs := s.caller.SetupArgs()
		setupOp := func() error { return setupExec(ctx, setupPool, setupArgs, s.sql, s.args) }
		sides := []struct {
			name string
			op   func() error
			lat  []time.Duration
			took time.Duration
			// self and server: CPU over all rounds (cpuMeter).
			self, server time.Duration
		}{{name: "gateway", op: gwOp}, {name: "floor", op: floorOp}, {name: "HTTP floor", op: httpOp}, {name: "setup floor", op: setupOp}, {name: "fair floor", op: fairOp}}
		for _, sd := range sides[1:] {
			if err := sd.op(); err != nil {
				return nil, fmt.Errorf("bench: %s: %s: %w", s.name, sd.name, err)
			}
		}
		for r := 0; r < o.Rounds; r++ {
			for i := range sides {
				self0, server0 := meter.sample()
				d, lat, err := phase(ctx, o, sides[i].op)
				if err != nil {
					return nil, fmt.Errorf("bench: %s: %s: %w", s.name, sides[i].name, err)
				}
				self1, server1 := meter.sample()
				sides[i].self, sides[i].server = sides[i].self+self1-self0, sides[i].server+server1-server0
				sides[i].lat, sides[i].took = append(sides[i].lat, lat...), sides[i].took+d
			}
		}
		res := Result{Name: s.name, Gateway: summarise(sides[0].lat, sides[0].took), Floor: summarise(sides[1].lat, sides[1].took),
			HTTPFloor: summarise(sides[2].lat, sides[2].took), SetupFloor: summarise(sides[3].lat, sides[3].took),
			FairFloor: summarise(sides[4].lat, sides[4].took)}
		for _, x := range []struct {
			sd *Side
			i  int
		}{{&res.Gateway, 0}, {&res.Floor, 1}, {&res.FairFloor, 4}} {
			if n := time.Duration(len(sides[x.i].lat)); n > 0 {
				x.sd.Self, x.sd.Server = sides[x.i].self/n, sides[x.i].server/n
			}
		}
		out = append(out, res)
		fmt.Fprintf(o.Out, "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |\n", res.Name, res.Gateway.RPS, res.Floor.RPS, res.Ratio(),
			ratio(res.Gateway, res.HTTPFloor), ratio(res.Gateway, res.FairFloor), ratio(res.SetupFloor, res.Floor), pcts(res.Gateway), pcts(res.FairFloor),
			cpuSplit(res))
	}
	return out, nil
}

// phase runs op from o.Workers goroutines for o.Phase (at most o.MaxOps
// operations) and returns the elapsed time and every latency.
func phase(ctx context.Context, o Options, op func() error) (time.Duration, []time.Duration, error) {
	var n atomic.Int64
	var firstErr atomic.Pointer[error]
	deadline := time.Now().Add(o.Phase)
	lats := make([][]time.Duration, o.Workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for time.Now().Before(deadline) && n.Add(1) <= int64(o.MaxOps) && ctx.Err() == nil {
				t := time.Now()
				if err := op(); err != nil {
					firstErr.CompareAndSwap(nil, &err)
					return
				}
				lats[w] = append(lats[w], time.Since(t))
			}
		}(w)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if e := firstErr.Load(); e != nil {
		return 0, nil, *e
	}
	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	return elapsed, all, ctx.Err()
}

func summarise(lat []time.Duration, total time.Duration) Side {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	s := Side{Ops: len(lat)}
	if total > 0 {
		s.RPS = float64(len(lat)) / total.Seconds()
	}
	at := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(p*float64(len(lat))))]
	}
	s.P50, s.P95, s.P99 = at(0.50), at(0.95), at(0.99)
	return s
}

func pcts(s Side) string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }
	return ms(s.P50) + " / " + ms(s.P95) + " / " + ms(s.P99) + " ms"
}

// machine describes where the figures come from.
func machine(ctx context.Context, pool *pgxpool.Pool) string {
	var pg string
	_ = pool.QueryRow(ctx, "SHOW server_version").Scan(&pg)
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range bytes.Split(b, []byte("\n")) {
			if k, v, ok := strings.Cut(string(line), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores (GOMAXPROCS %d), %s, PostgreSQL %s", cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), pg)
}
