package app

import (
	"context"
	"log/slog"
	"sync"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/realtime"
	"github.com/labelbase/labelbase/pkg/realtime/bus"
	"github.com/labelbase/labelbase/pkg/realtime/pgchanges"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

// realtimeParts are /realtime/v1's pieces: the socket service, the
// cross-gateway bus it fans out over, and the postgres_changes engine
// (nil when a harness supplied its own change source).
type realtimeParts struct {
	svc     *realtime.Service
	bus     *bus.Bus
	changes *pgchanges.Service
}

// newRealtime builds /realtime/v1 when REALTIME_ENABLED is on (the zero
// value otherwise). The bus and the replication connection need a
// session each, so they use the direct URL, never a transaction pooler.
func newRealtime(cfg *config.Config, pools *db.Pools, verifier *token.Verifier, log *slog.Logger, src realtime.ChangeSource) realtimeParts {
	if !cfg.Realtime.Enabled {
		return realtimeParts{}
	}
	var p realtimeParts
	p.bus = bus.New(pools.Owner, sessionURL(cfg), log)
	if src == nil {
		p.changes = pgchanges.New(pgchanges.Config{Pool: pools.Owner, DirectURL: sessionURL(cfg),
			Publication: "supabase_realtime", Bus: p.bus, Logger: log})
		src = changeSource{p.changes}
	}
	p.svc = realtime.New(realtime.Deps{Config: cfg, Pool: pools.Owner, Bus: p.bus, Verifier: verifier, Log: log, Changes: src})
	return p
}

// module is the route registration, nil when realtime is off.
func (p realtimeParts) module() server.Module {
	if p.svc == nil {
		return nil
	}
	return p.svc.Register
}

// start runs the bus, the socket service's housekeeping and, on the one
// gateway that wins the lock, logical replication.
func (p realtimeParts) start(ctx context.Context, wg *sync.WaitGroup) {
	if p.svc == nil {
		return
	}
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	run(func() { _ = p.bus.Run(ctx) })
	run(func() { p.svc.Run(ctx) })
	if p.changes != nil {
		run(func() { _ = p.changes.Run(ctx) })
	}
}

// changeSource adapts pgchanges to realtime's ChangeSource: the two
// packages declare the same Subscription and Deliver so that neither
// imports the other.
type changeSource struct{ s *pgchanges.Service }

func (c changeSource) Ready(ctx context.Context) error { return c.s.Ready(ctx) }

func (c changeSource) Check(ctx context.Context, sub realtime.Subscription) error {
	return c.s.Check(ctx, pgchanges.Subscription(sub))
}

func (c changeSource) Subscribe(subs []realtime.Subscription, d realtime.Deliver) func() {
	out := make([]pgchanges.Subscription, len(subs))
	for i, s := range subs {
		out[i] = pgchanges.Subscription(s)
	}
	return c.s.Subscribe(out, pgchanges.Deliver(d))
}

// sessionURL is the connection string for what needs a session (LISTEN,
// logical replication): DATABASE_DIRECT_URL behind a pooler, else
// DATABASE_URL.
func sessionURL(cfg *config.Config) string { return cfg.DirectOrPrimary() }
