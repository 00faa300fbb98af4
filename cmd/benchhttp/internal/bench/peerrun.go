package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PeerResult is one scenario at one number of client connections, on
// both sides. Unlike Result, Side.Self here is the server process's CPU
// per request (the gateway's or pREST's), not the harness's: the client
// is the same for both and left out.
type PeerResult struct {
	Name      string
	Workers   int
	Labelbase Side
	Peer      Side
}

// Ratio is labelbase's throughput over the peer's.
func (r PeerResult) Ratio() float64 { return ratio(r.Labelbase, r.Peer) }

// Ceiling is the ratio the gateway would reach if its own process cost
// nothing, at the PostgreSQL cost measured: the peer's whole CPU per
// request (process and PostgreSQL) over PostgreSQL's per gateway request.
// When the machine's cores are what both sides are short of (two shared
// cores, as here), throughput goes as one over the CPU a request takes, so
// no cut in the gateway's Go code can lift a scenario past this; only less
// work in PostgreSQL can. The client's CPU, the same on both sides, is
// left out, which only raises a ceiling above 1. 0 when PostgreSQL's CPU
// was not measured.
func (r PeerResult) Ceiling() float64 {
	if r.Labelbase.Server <= 0 {
		return 0
	}
	return float64(r.Peer.Self+r.Peer.Server) / float64(r.Labelbase.Server)
}

// peers are the two servers under test, each its own process on the same
// database, and the client's view of them.
type peers struct {
	labelbase, prest *child
	lb, pr           target
	lbVersion        string
	dir              string
	// wrk, with -client wrk, sends the phases' requests instead of the
	// Go client (the checks before them stay the Go client's).
	wrk *wrk
}

// RunPeer measures the gateway against a peer (o.Peer; "prest" is the one
// there is) side by side: the same PostgreSQL and dataset, the same HTTP
// client, interleaved rounds, at each of o.WorkersList client connections,
// and prints one table per connection count as it goes.
func RunPeer(ctx context.Context, o Options) ([]PeerResult, error) {
	if o.Peer != "prest" {
		return nil, errNoPeer
	}
	if len(o.WorkersList) == 0 {
		o.WorkersList = []int{o.Workers}
	}
	// The pREST build comes first: if it fails, nothing else was started.
	bin, err := prestBinary(ctx, o.PrestBinary, o.Log)
	if err != nil {
		return nil, err
	}
	url, stop, err := database(ctx, o)
	if err != nil {
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
	pairs, err := selectedPairs(o, fx, url)
	if err != nil {
		return nil, err
	}
	ps, err := startPeers(ctx, o, bin, url, fx.user)
	if err != nil {
		return nil, err
	}
	defer ps.close()
	for _, p := range pairs {
		if err := p.check(ctx, ps.lb, ps.pr); err != nil {
			return nil, err
		}
	}
	meter := newCPUMeter(ctx, owner)
	printPeerHeader(o.Out, o, machine(ctx, owner), ps.lbVersion)
	var out []PeerResult
	for _, w := range o.WorkersList {
		printPeerTableHead(o.Out, w)
		for _, p := range pairs {
			res, err := measurePair(ctx, o, w, meter, ps, p)
			if err != nil {
				return nil, err
			}
			out = append(out, res)
			printPeerRow(o.Out, res)
		}
	}
	return out, nil
}

// selectedPairs are the peer scenarios o.Only keeps.
func selectedPairs(o Options, fx *fixture, url string) ([]pair, error) {
	db, err := databaseName(url)
	if err != nil {
		return nil, err
	}
	all, err := peerScenarios(fx, db)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(p pair) bool { return o.Only != "" && !strings.Contains(p.name, o.Only) }), nil
}

// startPeers builds the gateway from this tree (or takes
// o.GatewayBinary) and starts it and pREST,
// both on url with o.PoolSize connections, behind one HTTP client sized for
// the largest connection count.
func startPeers(ctx context.Context, o Options, prestBin, url, user string) (*peers, error) {
	dir, err := os.MkdirTemp("", "labelbase-peer-")
	if err != nil {
		return nil, err
	}
	ps := &peers{dir: dir}
	lbBin, version, err := gatewayBinary(ctx, o.GatewayBinary, dir)
	if err != nil {
		ps.close()
		return nil, err
	}
	ps.lbVersion = version
	client := newClient(slices.Max(o.WorkersList), o.Gzip)
	if ps.labelbase, ps.lb, err = startGatewayProcess(ctx, o, lbBin, url, user, dir, client); err != nil {
		ps.close()
		return nil, err
	}
	if ps.prest, err = startPrest(ctx, prestBin, url, o.PoolSize, dir); err != nil {
		ps.close()
		return nil, err
	}
	ps.pr = prestTarget(ps.prest, client)
	if o.Client == "wrk" {
		if ps.wrk, err = newWrk(dir); err != nil {
			ps.close()
			return nil, err
		}
	}
	return ps, nil
}

// close stops whichever servers run and removes their directory.
func (ps *peers) close() {
	for _, c := range []*child{ps.prest, ps.labelbase} {
		if c != nil {
			c.stop()
		}
	}
	os.RemoveAll(ps.dir)
}

// measurePair runs the pair at workers connections for o.Rounds rounds,
// each a labelbase phase and a pREST phase, the first side alternating
// from round to round so that neither always runs on a warmer (or more
// loaded) machine. CPU is read around each phase: the side's server
// process, and PostgreSQL.
func measurePair(ctx context.Context, o Options, workers int, meter *cpuMeter, ps *peers, p pair) (PeerResult, error) {
	o.Workers = workers
	type side struct {
		name string
		proc *child
		run  func(Options) (phaseRun, error)
	}
	var sides [2]side
	for i, sd := range []struct {
		name string
		proc *child
		t    target
		s    *scenario
	}{{"labelbase", ps.labelbase, ps.lb, p.labelbase}, {"pREST", ps.prest, ps.pr, p.prest}} {
		run, err := ps.runner(ctx, o, sd.t, sd.s)
		if err != nil {
			return PeerResult{}, err
		}
		sides[i] = side{sd.name, sd.proc, run}
	}
	// An unmeasured phase per side first: pools open their connections and
	// prepare their statements, which the first measured phase of either
	// side would otherwise pay.
	warm := o
	warm.Phase = min(o.Phase, 500*time.Millisecond)
	for _, sd := range sides {
		if _, err := sd.run(warm); err != nil {
			return PeerResult{}, fmt.Errorf("bench: %s, %d connections: %s (warm-up): %w", p.name, workers, sd.name, err)
		}
	}
	var runs [2][]phaseRun
	var proc, server [2]time.Duration
	for r := 0; r < o.Rounds; r++ {
		for k := range 2 {
			i := (k + r) % 2
			p0, s0 := sides[i].proc.cpu(), meter.server()
			run, err := sides[i].run(o)
			if err != nil {
				return PeerResult{}, fmt.Errorf("bench: %s, %d connections: %s: %w", p.name, workers, sides[i].name, err)
			}
			proc[i] += sides[i].proc.cpu() - p0
			server[i] += meter.server() - s0
			runs[i] = append(runs[i], run)
		}
	}
	res := PeerResult{Name: p.name, Workers: workers}
	for i, sd := range []*Side{&res.Labelbase, &res.Peer} {
		if ps.wrk != nil {
			*sd = wrkSide(runs[i])
		} else {
			*sd = goSide(runs[i])
		}
		if n := time.Duration(sd.Ops); n > 0 {
			sd.Self, sd.Server = proc[i]/n, server[i]/n
		}
	}
	return res, nil
}

// runner is one side's phase: wrk's with -client wrk (its script written
// once, here), else the Go client's workers.
func (ps *peers) runner(ctx context.Context, o Options, t target, s *scenario) (func(Options) (phaseRun, error), error) {
	if ps.wrk != nil {
		script, err := ps.wrk.script(t, s, o.Gzip)
		if err != nil {
			return nil, err
		}
		return func(o Options) (phaseRun, error) { return ps.wrk.phase(ctx, o, t.base+s.path, script) }, nil
	}
	op := t.op(ctx, s)
	return func(o Options) (phaseRun, error) {
		d, l, err := phase(ctx, o, op)
		return phaseRun{took: d, lat: l}, err
	}, nil
}

// goSide sums a side's Go-client phases: their latencies over their time.
func goSide(runs []phaseRun) Side {
	var lat []time.Duration
	var took time.Duration
	for _, r := range runs {
		lat, took = append(lat, r.lat...), took+r.took
	}
	return summarise(lat, took)
}

// printPeerHeader says what was compared with what, where: the gateway
// enforces RLS on its member requests while pREST reads and writes as the
// superuser, which only makes pREST's side cheaper.
func printPeerHeader(w io.Writer, o Options, machine, lbVersion string) {
	fmt.Fprintf(w, "# labelbase vs pREST: %s\n", machine)
	fmt.Fprintf(w, "# %s, its own process, member requests under RLS; pREST %s, its own process, as PostgreSQL's superuser: no RLS, no token check\n",
		lbVersion, prestVersion)
	fmt.Fprintf(w, "# pool %d each, %d rounds x %s per side (first side alternating), dataset %d+demo labels x %d releases, %s, client %s\n",
		o.PoolSize, o.Rounds, o.Phase, o.Dataset.Labels, o.Dataset.ReleasesPerLabel, encoding(o), clientName(o))
}

// printPeerTableHead starts one connection count's table.
func printPeerTableHead(w io.Writer, workers int) {
	fmt.Fprintf(w, "\n# %d client connections\n\n", workers)
	fmt.Fprintln(w, "| scenario | connections | labelbase req/s | pREST req/s | labelbase/pREST | ceiling | labelbase p50 / p95 / p99 | pREST p50 / p95 / p99 | CPU µs/req, process + PostgreSQL: labelbase / pREST |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---|---|---|")
}

// printPeerRow is one scenario's line.
func printPeerRow(w io.Writer, r PeerResult) {
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	ceiling := "–" // no PostgreSQL meter
	if c := r.Ceiling(); c > 0 {
		ceiling = strconv.FormatFloat(c, 'f', 2, 64)
	}
	fmt.Fprintf(w, "| %s | %d | %.0f | %.0f | %.2f | %s | %s | %s | %.0f + %.0f / %.0f + %.0f |\n", r.Name, r.Workers,
		r.Labelbase.RPS, r.Peer.RPS, r.Ratio(), ceiling, pcts(r.Labelbase), pcts(r.Peer),
		us(r.Labelbase.Self), us(r.Labelbase.Server), us(r.Peer.Self), us(r.Peer.Server))
}

// ParseWorkersList reads -workers-list: client connection counts, comma
// separated, each at least 1.
func ParseWorkersList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bench: -workers-list %q: %q is no connection count", s, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// clientName says which client sent the phases' requests.
func clientName(o Options) string {
	if o.Client == "wrk" {
		return "wrk (2 threads)"
	}
	return "the harness's Go client"
}
