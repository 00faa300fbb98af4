package bench

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/db"
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
	// Client, with Peer, is "wrk" to send the phases' requests with wrk
	// (wrk.go) instead of the Go client ("" or "go").
	Client string
	// Gzip sends Accept-Encoding: gzip, as browsers do, so the gateway
	// compresses its larger responses and the client inflates them. Off,
	// the client sends no Accept-Encoding, as wrk does: every side then
	// answers the same bytes, since neither pREST nor the floors compress.
	Gzip bool
	// Only runs the scenarios whose name contains it.
	Only string
	// Peer, when set ("prest"), runs RunPeer: the gateway as its own
	// process against that server, at each of WorkersList client
	// connections. PrestBinary is a prestd to use instead of the cached
	// build; GatewayBinary a labelbase to use instead of building this
	// tree (a before/after comparison runs an older build).
	Peer          string
	WorkersList   []int
	PrestBinary   string
	GatewayBinary string
	// GatewayEnv, with Peer, adds to the gateway process's environment
	// (a setting, or the Go runtime's GOGC) to measure its effect.
	GatewayEnv map[string]string
	// GatewayAdmin, with Peer, opens the gateway process's admin listener
	// on this address with Go's profiler (ADMIN_PPROF), so a run can be
	// profiled from outside: go tool pprof http://ADDR/debug/pprof/profile.
	GatewayAdmin string

	Out io.Writer
	Log *slog.Logger
}

// Defaults are the figures docs/performance.md records.
func Defaults() Options {
	return Options{
		Dataset: Dataset{Labels: 2000, ReleasesPerLabel: 50, Follows: 100},
		Workers: 16, WorkersList: []int{16, 64}, PoolSize: 10, Rounds: 5, Phase: 2 * time.Second, MaxOps: 500000,
		Out: os.Stdout, Log: slog.New(slog.DiscardHandler),
	}
}

// Result is one scenario's figures.
//
// Floor is the floor: the gateway's exact statement, prepared, on
// connections whose role and claims were set once. The two other
// references split the gap between the gateway and that floor in two:
// HTTPFloor serves the same statement over HTTP (the same client sending
// the gateway's own request, a bare net/http handler on the floor's pool
// answering with the gateway's status), so gateway/HTTPFloor is what the
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

// Run sets up the database and the gateway, then measures every scenario
// and prints the table as it goes.
func Run(ctx context.Context, o Options) ([]Result, error) {
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
	client := newClient(o.Workers, o.Gzip)
	gw, err := startGateway(ctx, o, url, fx.user, client)
	if err != nil {
		return nil, err
	}
	defer gw.close()
	fl, err := openFloors(ctx, url, o.PoolSize, fx.user, gw.to)
	if err != nil {
		return nil, err
	}
	defer fl.close()

	meter := newCPUMeter(ctx, owner)
	printHeader(o.Out, o, machine(ctx, owner))
	var out []Result
	for _, s := range scenarios(fx) {
		if o.Only != "" && !strings.Contains(s.name, o.Only) {
			continue
		}
		res, err := measure(ctx, o, gw, fl, meter, s)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
		printRow(o.Out, res)
	}
	return out, nil
}

// database is the URL of a migrated database and what stops it: a
// throwaway cluster unless o.DatabaseURL names one.
func database(ctx context.Context, o Options) (string, func(), error) {
	if o.DatabaseURL == "" {
		return startDatabase(ctx, o.Log)
	}
	return o.DatabaseURL, func() {}, migrateUp(o.DatabaseURL)
}
