// Command benchhttp runs the gateway-vs-floor benchmark (internal/bench):
// go tool task bench:http, or go run ./cmd/benchhttp -h. With -peer prest
// it runs the gateway against pREST instead (go tool task bench:prest).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"

	"github.com/labelbase/labelbase/cmd/benchhttp/internal/bench"
)

func main() {
	o := bench.Defaults()
	flag.IntVar(&o.Workers, "workers", o.Workers, "concurrent clients per side")
	flag.IntVar(&o.PoolSize, "pool", o.PoolSize, "connections of the gateway's REST pool and of the floor's pool")
	flag.IntVar(&o.Rounds, "rounds", o.Rounds, "interleaved rounds per scenario")
	flag.DurationVar(&o.Phase, "phase", o.Phase, "length of one side's phase in a round")
	flag.IntVar(&o.Dataset.Labels, "labels", o.Dataset.Labels, "generated labels (beside the demo catalogue)")
	flag.IntVar(&o.Dataset.ReleasesPerLabel, "releases-per-label", o.Dataset.ReleasesPerLabel, "releases of each generated label")
	flag.StringVar(&o.Only, "only", "", "run only the scenarios whose name contains this")
	flag.StringVar(&o.Client, "client", "go", "with -peer: what sends the measured requests, go (the harness's client) or wrk (sudo apt-get install wrk)")
	flag.BoolVar(&o.Gzip, "gzip", false, "send Accept-Encoding: gzip as browsers do (the gateway then compresses; pREST and the floors never do)")
	flag.StringVar(&o.DatabaseURL, "database-url", "", "an empty database to use instead of a throwaway cluster")
	flag.StringVar(&o.GatewayAdmin, "gateway-admin", "", "with -peer: serve the gateway process's /metrics and /debug/pprof/ on this address")
	flag.StringVar(&o.Peer, "peer", "", "measure the gateway, as its own process, against this server instead of the floors: prest")
	flag.Func("workers-list", "with -peer: client connection counts, comma separated (default 16,64)", func(s string) error {
		l, err := bench.ParseWorkersList(s)
		o.WorkersList = l
		return err
	})
	flag.StringVar(&o.PrestBinary, "prest-bin", "", "with -peer prest: a prestd of the pinned version to use instead of the cached build")
	flag.StringVar(&o.GatewayBinary, "gateway-bin", "", "with -peer: a labelbase binary to measure instead of building this tree")
	flag.Func("gateway-env", "with -peer: KEY=VALUE added to the gateway process's environment (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", s)
		}
		if o.GatewayEnv == nil {
			o.GatewayEnv = map[string]string{}
		}
		o.GatewayEnv[k] = v
		return nil
	})
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run here")
	flag.Parse()
	switch {
	case o.Client != "go" && o.Client != "wrk":
		fmt.Fprintf(os.Stderr, "benchhttp: -client is go or wrk, not %q\n", o.Client)
		os.Exit(2)
	case o.Client == "wrk" && o.Peer == "":
		// The floors' harness compares in-process sides through one client.
		fmt.Fprintln(os.Stderr, "benchhttp: -client wrk needs -peer")
		os.Exit(2)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "benchhttp:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	run := func() error { _, err := bench.Run(ctx, o); return err }
	if o.Peer != "" {
		run = func() error { _, err := bench.RunPeer(ctx, o); return err }
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchhttp:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}
