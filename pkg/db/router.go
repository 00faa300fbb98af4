package db

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Router sends each /rest/v1 read to a healthy replica and everything else
// to the primary. Health and lag are read continuously (Run); routing
// itself only reads the last result, so it never waits on a replica.
type Router struct {
	// primary is the REST pool on the primary: reads fall back to it.
	primary *pgxpool.Pool
	// positions reads the primary's WAL position (the owner pool).
	positions *pgxpool.Pool
	replicas  []*Replica
	maxLag    int64
	interval  time.Duration
	log       *slog.Logger

	next       atomic.Uint32
	primaryLSN atomic.Uint64
	ready      chan struct{}
	readyOnce  sync.Once
}

// RouterOptions configure a Router.
type RouterOptions struct {
	MaxLagBytes int64
	Interval    time.Duration
	Log         *slog.Logger
}

// NewRouter routes over p's replicas. With none, every read goes to the
// primary and Run returns at once.
func NewRouter(p *Pools, o RouterOptions) *Router {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Interval <= 0 {
		o.Interval = 500 * time.Millisecond
	}
	return &Router{primary: p.REST, positions: p.Owner, replicas: p.Replicas, maxLag: o.MaxLagBytes,
		interval: o.Interval, log: o.Log, ready: make(chan struct{})}
}

// HasReplicas reports whether any replica is configured.
func (rt *Router) HasReplicas() bool { return rt != nil && len(rt.replicas) > 0 }

// Replicas are the configured replicas.
func (rt *Router) Replicas() []*Replica { return rt.replicas }

// Primary is the REST pool on the primary.
func (rt *Router) Primary() *pgxpool.Pool { return rt.primary }

// Pick returns a healthy replica that has replayed at least after, round
// robin; nil means the primary.
func (rt *Router) Pick(after LSN) *Replica {
	if rt == nil || len(rt.replicas) == 0 || after == MaxLSN {
		return nil
	}
	n := uint32(len(rt.replicas))
	start := rt.next.Add(1)
	for i := range n {
		r := rt.replicas[(start+i)%n]
		if st := r.State(); st.Healthy && st.Replayed >= after {
			return r
		}
	}
	return nil
}

// Failed takes r out of rotation at once when err says it went away, so
// that later reads do not try it until a health check passes again.
func (rt *Router) Failed(r *Replica, err error) {
	if r == nil || !ConnectionLost(err) {
		return
	}
	prev := r.State()
	r.state.Store(&ReplicaState{Why: "a request lost its connection: " + err.Error(), At: time.Now(), Replayed: prev.Replayed})
	if prev.Healthy {
		rt.log.Warn("replica taken out of rotation", "replica", r.Name, "err", err)
	}
	r.pool.Reset()
}

// PrimaryLSN reads the primary's current WAL insert position: every
// transaction committed before the call ends at or before it.
func (rt *Router) PrimaryLSN(ctx context.Context) (LSN, error) {
	var s string
	if err := rt.positions.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&s); err != nil {
		return 0, err
	}
	return ParseLSN(s)
}

// Checked is closed once every replica has been checked once.
func (rt *Router) Checked() <-chan struct{} { return rt.ready }

// Run checks the replicas every interval until ctx ends.
func (rt *Router) Run(ctx context.Context) {
	if len(rt.replicas) == 0 {
		rt.readyOnce.Do(func() { close(rt.ready) })
		return
	}
	defer func() {
		for _, r := range rt.replicas {
			r.closeProbe()
		}
	}()
	t := time.NewTicker(rt.interval)
	defer t.Stop()
	for {
		rt.CheckNow(ctx)
		rt.readyOnce.Do(func() { close(rt.ready) })
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// CheckNow runs one round of health checks, the replicas in parallel,
// each bounded so that a replica that hangs is out within the interval
// plus one second.
func (rt *Router) CheckNow(ctx context.Context) {
	timeout := min(2*rt.interval, time.Second)
	pctx, cancel := context.WithTimeout(ctx, timeout)
	if l, err := rt.PrimaryLSN(pctx); err == nil {
		rt.primaryLSN.Store(uint64(l))
	} else if ctx.Err() == nil {
		// The primary is away (failover, restart): compare with the last
		// position known rather than take every replica out. Its requests
		// report the outage; this would only repeat it twice a second.
		rt.log.Debug("replica check: cannot read the primary's WAL position", "err", err)
	}
	cancel()
	primary := LSN(rt.primaryLSN.Load())
	var wg sync.WaitGroup
	for _, r := range rt.replicas {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			st := r.check(cctx, primary, rt.maxLag)
			prev := r.state.Swap(&st)
			if prev == nil || prev.Healthy != st.Healthy {
				if st.Healthy {
					rt.log.Info("replica in rotation", "replica", r.Name, "lag_bytes", st.LagBytes)
				} else {
					rt.log.Warn("replica out of rotation", "replica", r.Name, "why", st.Why)
				}
			}
		})
	}
	wg.Wait()
}
