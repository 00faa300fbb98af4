package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// namedOp is one side's operation: one request, or one statement.
type namedOp struct {
	name string
	op   func() error
}

// measure captures the scenario's SQL through the gateway, checks that
// every floor runs it, then alternates the sides' phases for o.Rounds
// rounds, so drift on the machine hits all sides alike.
func measure(ctx context.Context, o Options, gw *gateway, fl *floors, meter *cpuMeter, s *scenario) (Result, error) {
	if err := gw.capture(ctx, s); err != nil {
		return Result{}, err
	}
	ops := append([]namedOp{{"gateway", gw.op(ctx, s)}}, fl.ops(ctx, s)...)
	for _, sd := range ops[1:] {
		if err := sd.op(); err != nil {
			return Result{}, fmt.Errorf("bench: %s: %s: %w", s.name, sd.name, err)
		}
	}
	lat := make([][]time.Duration, len(ops))
	took := make([]time.Duration, len(ops))
	self, server := make([]time.Duration, len(ops)), make([]time.Duration, len(ops))
	for r := 0; r < o.Rounds; r++ {
		for i, sd := range ops {
			self0, server0 := meter.sample()
			d, l, err := phase(ctx, o, sd.op)
			if err != nil {
				return Result{}, fmt.Errorf("bench: %s: %s: %w", s.name, sd.name, err)
			}
			self1, server1 := meter.sample()
			self[i], server[i] = self[i]+self1-self0, server[i]+server1-server0
			lat[i], took[i] = append(lat[i], l...), took[i]+d
		}
	}
	res := Result{Name: s.name, Gateway: summarise(lat[0], took[0]), Floor: summarise(lat[1], took[1]),
		HTTPFloor: summarise(lat[2], took[2]), SetupFloor: summarise(lat[3], took[3]),
		FairFloor: summarise(lat[4], took[4])}
	for _, x := range []struct {
		sd *Side
		i  int
	}{{&res.Gateway, 0}, {&res.Floor, 1}, {&res.SetupFloor, 3}, {&res.FairFloor, 4}} {
		if n := time.Duration(len(lat[x.i])); n > 0 {
			x.sd.Self, x.sd.Server = self[x.i]/n, server[x.i]/n
		}
	}
	return res, nil
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

// printHeader starts the Markdown table docs/performance.md records.
func printHeader(w io.Writer, o Options, machine string) {
	fmt.Fprintf(w, "# gateway vs floor: %s\n", machine)
	fmt.Fprintf(w, "# %d workers per side, pool %d, %d rounds x %s per side, dataset %d+demo labels x %d releases, %s\n\n",
		o.Workers, o.PoolSize, o.Rounds, o.Phase, o.Dataset.Labels, o.Dataset.ReleasesPerLabel, encoding(o))
	fmt.Fprintln(w, "| scenario | gateway req/s | floor req/s | gateway/floor | gateway/HTTP floor | gateway/fair floor | setup floor/floor | gateway p50 / p95 / p99 | fair floor p50 / p95 / p99 | CPU µs/req, process + PostgreSQL: gateway / setup floor / fair floor / floor |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---|---|---|")
}

// encoding says what the client asks for, since it decides whether the
// gateway compresses (and nothing else does).
func encoding(o Options) string {
	if o.Gzip {
		return "Accept-Encoding: gzip (the gateway compresses bodies from COMPRESS_MIN_BYTES)"
	}
	return "no Accept-Encoding (as wrk): no side compresses"
}

// printRow is one scenario's line of the table.
func printRow(w io.Writer, res Result) {
	fmt.Fprintf(w, "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |\n", res.Name, res.Gateway.RPS, res.Floor.RPS, res.Ratio(),
		ratio(res.Gateway, res.HTTPFloor), ratio(res.Gateway, res.FairFloor), ratio(res.SetupFloor, res.Floor), pcts(res.Gateway), pcts(res.FairFloor),
		cpuSplit(res))
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
