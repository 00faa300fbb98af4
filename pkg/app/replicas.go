package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/metrics"
)

// ReadAfterCookie carries the primary's WAL position after a client's
// write, so that its next reads go only to a server that has replayed it
// (docs/scaling.md, read-your-writes).
const ReadAfterCookie = "labelbase-read-after"

// openPools opens the pools cfg describes and refuses, before serving
// anything, a set-up that would break silently: more connections than the
// primary allows, or (reported by listenChecked, which New waits for once
// the rest of start-up is done, so that its round trips overlap it) LISTEN
// through a transaction pooler.
func openPools(ctx context.Context, cfg *config.Config, log *slog.Logger) (pools *db.Pools, listenChecked <-chan error, err error) {
	rc := cfg.Replicas
	pools, err = db.OpenWith(ctx, db.Options{OwnerURL: cfg.DatabaseURL, RESTURL: cfg.RESTDatabaseURL, Size: cfg.DBPoolSize,
		Exec: !cfg.DBPreparedStatements, DirectURL: rc.DirectURL, ReplicaURLs: rc.URLs})
	if err != nil {
		return nil, nil, err
	}
	listen, err := pools.ListenConfig()
	if err != nil {
		pools.Close()
		return nil, nil, fmt.Errorf("app: DATABASE_DIRECT_URL: %w", err)
	}
	checked := make(chan error, 1)
	go func() {
		if err := db.CheckListen(ctx, listen); err != nil {
			checked <- err
		}
		close(checked)
	}()
	if err := checkPools(ctx, cfg, pools, log); err != nil {
		// The pools are closing; wait until the LISTEN check has finished
		// with them, and keep its answer for the log.
		if lerr := <-checked; lerr != nil {
			log.Debug("LISTEN check, after the start-up failure", "err", lerr)
		}
		pools.Close()
		return nil, nil, err
	}
	return pools, checked, nil
}

func checkPools(ctx context.Context, cfg *config.Config, pools *db.Pools, log *slog.Logger) error {
	b := db.Budget{Gateways: cfg.Replicas.Gateways, PoolSize: cfg.DBPoolSize, Pooled: pools.Pooled(), Sessions: sessionsOutsidePools(cfg)}
	spare, err := b.Check(ctx, pools.Session)
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	if err := checkReplicaBudgets(ctx, b, pools.Replicas, log); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	if pools.Pooled() {
		log.Info("behind a pooler: sessions (LISTEN, crawler lock, migrations) use DATABASE_DIRECT_URL",
			"direct_connections_per_gateway", b.PerGateway(), "left_for_the_pooler_and_admins", spare,
			"prepared_statements", cfg.DBPreparedStatements)
		if cfg.DBPreparedStatements {
			log.Warn("DB_PREPARED_STATEMENTS is on behind a pooler: this needs PgBouncer 1.21+ with max_prepared_statements > 0; " +
				"with older PgBouncer or Supavisor in transaction mode set DB_PREPARED_STATEMENTS=false")
		}
	}
	return nil
}

// sessionsOutsidePools counts the connections a gateway opens on the
// primary besides its pools and LISTEN: Realtime's bus (a LISTEN of its
// own) and its leader lock. Realtime's logical replication connection is
// a WAL sender, counted against max_wal_senders instead.
func sessionsOutsidePools(cfg *config.Config) int {
	if cfg.Realtime.Enabled {
		return 2
	}
	return 0
}

// checkReplicaBudgets checks each replica's budget, the replicas in
// parallel. One that does not answer at start is logged and left to the
// health checks: a replica may be down when a gateway starts.
func checkReplicaBudgets(ctx context.Context, b db.Budget, replicas []*db.Replica, log *slog.Logger) error {
	errs := make([]error, len(replicas))
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Go(func() {
			reached, err := b.CheckReplica(ctx, r)
			if !reached {
				log.Warn("replica not reached at start: its connection budget is not checked", "replica", r.Name,
					"needs", b.Gateways*b.PerReplica())
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// readYourWrites is the read-your-writes middleware for /rest/v1 and
// /auth/v1. A successful write's response sets ReadAfterCookie to the
// primary's WAL position, read after the write committed (handlers
// commit before they answer); a later GET or HEAD carrying it may only be
// served by a replica that has replayed that far. Reads are routed by
// pkg/rest (db.ReadAfter); this only moves the position between cookie
// and request context.
func readYourWrites(rt *db.Router, window time.Duration, log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			r := c.Request()
			path := r.URL.Path
			if !strings.HasPrefix(path, "/rest/v1") && !strings.HasPrefix(path, "/auth/v1") {
				return next(c)
			}
			switch r.Method {
			case http.MethodGet, http.MethodHead:
				if ck, err := r.Cookie(ReadAfterCookie); err == nil {
					// A value we did not write is ignored: the lag
					// threshold still bounds how stale a read can be.
					if l, err := db.ParseLSN(ck.Value); err == nil {
						c.SetRequest(r.WithContext(db.WithReadAfter(r.Context(), l)))
					}
				}
				return next(c)
			case http.MethodOptions:
				return next(c)
			}
			if resp, err := echo.UnwrapResponse(c.Response()); err == nil {
				resp.Before(func() {
					if resp.Status < 400 {
						setReadAfter(r.Context(), resp, rt, window, log)
					}
				})
			}
			return next(c)
		}
	}
}

// setReadAfter sets the cookie on a successful write's response. If the
// position cannot be read, the cookie sends the client's reads to the
// primary for the window instead.
func setReadAfter(ctx context.Context, w http.ResponseWriter, rt *db.Router, window time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	l, err := rt.PrimaryLSN(ctx)
	if err != nil {
		log.Warn("read-your-writes: cannot read the primary's WAL position; this client reads from the primary for a while", "err", err)
		l = db.MaxLSN
	}
	http.SetCookie(w, &http.Cookie{Name: ReadAfterCookie, Value: l.String(), Path: "/rest/v1",
		MaxAge: int(window / time.Second), HttpOnly: true, SameSite: http.SameSiteLaxMode})
}

// routing is the replica router and the connection the schema listener
// uses (parsed once already by openPools, so it cannot fail here).
func routing(cfg *config.Config, pools *db.Pools, log *slog.Logger) (*db.Router, *pgx.ConnConfig) {
	rt := db.NewRouter(pools, db.RouterOptions{MaxLagBytes: cfg.Replicas.MaxLagBytes, Interval: cfg.Replicas.CheckInterval, Log: log})
	listen, _ := pools.ListenConfig()
	return rt, listen
}

// poolMetrics is the gateway's metrics with every pool's use reported:
// owner, REST, each replica's and the direct one behind a pooler.
func poolMetrics(pools *db.Pools) *metrics.Metrics {
	m := metrics.New()
	m.AddPool("owner", pools.Owner)
	m.AddPool("rest", pools.REST)
	for _, r := range pools.Replicas {
		m.AddPool("replica "+r.Name, r.Pool())
	}
	if pools.Session != pools.Owner {
		m.AddPool("direct", pools.Session)
	}
	return m
}
