// Package rest serves /rest/v1: a PostgREST-compatible API over the
// exposed schemas, where PostgreSQL's grants and row-level security decide
// what each caller may read and write.
//
// A request is parsed into a syntax tree (package query), checked against
// the schema cache (package schema), turned into one SQL statement, and
// run in one transaction as the caller's role, set up by a statement
// pipelined with it (exec.go). JSON is built by PostgreSQL.
package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/rest/schema"
	"github.com/labelbase/labelbase/pkg/token"
)

// Deps is what the API is built from.
type Deps struct {
	Config *config.Config
	// Pool is the REST pool: it connects as authenticator.
	Pool     *pgxpool.Pool
	Verifier *token.Verifier
	Log      *slog.Logger
	// Observe, when set, is told every main statement before it runs, with
	// its text-format arguments and the caller. The benchmark harness uses
	// it to send the gateway's exact SQL straight through pgx.
	Observe func(sql string, args [][]byte, caller db.Caller)
	// OnReload, when set, is told the outcome and duration of every schema
	// cache load (metrics).
	OnReload func(err error, took time.Duration)
	// Router, when set, sends GET and HEAD to read replicas (nil: all to
	// Pool). ListenConfig, when set, is the connection LISTEN pgrst runs
	// on (a direct one when Pool goes through a transaction pooler).
	Router       *db.Router
	ListenConfig *pgx.ConnConfig
}

// API is the /rest/v1 module.
type API struct {
	cfg      *config.Config
	pool     *pgxpool.Pool
	verifier *token.Verifier
	log      *slog.Logger
	observe  func(sql string, args [][]byte, caller db.Caller)
	onReload func(err error, took time.Duration)
	router   *db.Router
	listenTo *pgx.ConnConfig
	cache    atomic.Pointer[schema.Cache]
	// env is the settings the environment gives; set is env with the
	// database's pgrst.* settings over it (settings.go).
	env *settings
	set atomic.Pointer[settings]
	// gen counts schema cache loads; statements prepared under an older
	// generation are deallocated before a connection's next request.
	gen atomic.Uint64
	// gucWriters holds the texts of write statements seen to set response
	// GUCs (see gucGuardSQL); a schema reload forgets them.
	gucWriters bounded[string, struct{}]
	// shapes holds the SQL of reads per request shape (shapes.go); a
	// schema reload forgets them.
	shapes bounded[shapeKey, *shape]
	// listening is closed once Watch has subscribed to pgrst and reloaded.
	listening     chan struct{}
	listeningOnce sync.Once

	// skipRoleSwitch is a test hook simulating a bug that forgets the role
	// switch; the authenticator login must then be refused everything.
	skipRoleSwitch bool
}

// New loads the schema cache and returns the API.
func New(ctx context.Context, d Deps) (*API, error) {
	if d.Config == nil || d.Pool == nil || d.Verifier == nil {
		return nil, errors.New("rest: Config, Pool and Verifier are required")
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	a := &API{cfg: d.Config, pool: d.Pool, verifier: d.Verifier, log: d.Log, observe: d.Observe, onReload: d.OnReload, listening: make(chan struct{}),
		router: d.Router, listenTo: d.ListenConfig}
	env, err := envSettings(d.Config)
	if err != nil {
		return nil, fmt.Errorf("rest: %w", err)
	}
	a.env = env
	a.set.Store(env)
	if err := a.ReloadConfig(ctx); err != nil {
		return nil, err
	}
	if err := a.Reload(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// settings is the current settings snapshot.
func (a *API) settings() *settings { return a.set.Load() }

// ReloadConfig reads the database's pgrst.* settings (unless DB_CONFIG is
// off) and swaps in the environment's settings with them laid over. A
// setting that does not parse fails the reload: the settings in force stay.
func (a *API) ReloadConfig(ctx context.Context) error {
	if !a.cfg.DBConfig {
		return nil
	}
	db, err := loadDBSettings(ctx, a.pool)
	if err != nil {
		return fmt.Errorf("rest: read in-database configuration: %w", err)
	}
	s, err := a.env.withDB(db)
	if err != nil {
		return fmt.Errorf("rest: in-database configuration: %w", err)
	}
	a.set.Store(s)
	a.log.Info("configuration loaded", "from_database", s.FromDB)
	return nil
}

// Reload rebuilds the schema cache and swaps it in; requests in flight
// keep the snapshot they started with.
func (a *API) Reload(ctx context.Context) error {
	start := time.Now()
	c, err := schema.Load(ctx, a.pool, a.settings().Schemas)
	if a.onReload != nil && !cutShort(ctx, err) {
		// A load cut short by shutdown counts as neither outcome.
		a.onReload(err, time.Since(start))
	}
	if err != nil {
		return fmt.Errorf("rest: load schema cache: %w", err)
	}
	a.cache.Store(c)
	a.gen.Add(1)
	a.gucWriters.clear()
	a.shapes.clear()
	a.log.Info("schema cache loaded", "tables", len(c.Tables), "functions", len(c.Funcs),
		"duration_ms", time.Since(start).Milliseconds())
	return nil
}

// Watch listens on channel pgrst and reloads the schema cache on
// 'reload schema' (or an empty payload), the configuration and then the
// schema cache on 'reload config', and both after every reconnect, since
// notifications may have been missed. It blocks until ctx ends.
//
// Reconnecting backs off from 1 s doubling to 30 s, with jitter so that
// several gateways do not knock on a restarting server in step; a
// subscription that lasted a minute starts the back-off over.
func (a *API) Watch(ctx context.Context) {
	backoff := time.Second
	for ctx.Err() == nil {
		// Every subscription, the first included, is followed by a reload:
		// a change made between the load in New (or the lost connection)
		// and LISTEN would otherwise be missed.
		began := time.Now()
		err := a.listen(ctx, true)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > time.Minute {
			backoff = time.Second
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		a.log.Warn("schema cache listener lost its connection; retrying", "err", err, "in", wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		backoff = min(2*backoff, 30*time.Second)
	}
}

// Ready reports whether /rest/v1 can serve: the schema cache is loaded
// (always true once New returned) and the REST pool reaches the database.
func (a *API) Ready(ctx context.Context) error {
	if a.cache.Load() == nil {
		return errors.New("rest: schema cache not loaded")
	}
	return a.pool.Ping(ctx)
}

func (a *API) listen(ctx context.Context, reloadFirst bool) error {
	cfg := a.listenTo
	if cfg == nil {
		cfg = a.pool.Config().ConnConfig
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN pgrst"); err != nil {
		return err
	}
	if reloadFirst {
		a.reloadAll(ctx)
	}
	a.listeningOnce.Do(func() { close(a.listening) })
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		switch n.Payload {
		case "", "reload schema":
			a.reloadFailed(ctx, "schema cache reload failed", a.Reload(ctx))
		case "reload config":
			// The exposed schemas may have changed with the settings.
			a.reloadAll(ctx)
		}
	}
}

// reloadAll reloads the configuration, then the schema cache.
func (a *API) reloadAll(ctx context.Context) {
	a.reloadFailed(ctx, "configuration reload failed; the settings in force stay", a.ReloadConfig(ctx))
	a.reloadFailed(ctx, "schema cache reload failed", a.Reload(ctx))
}

// reloadFailed logs a failed reload at Error, unless the gateway is
// stopping (ctx ended): a reload cut short by shutdown is not a fault an
// operator must look into, and the cache in force serves until the end.
func (a *API) reloadFailed(ctx context.Context, msg string, err error) {
	switch {
	case err == nil:
	case cutShort(ctx, err):
		a.log.Debug(msg+" (the gateway is stopping)", "err", err)
	default:
		a.log.Error(msg, "err", err)
	}
}

// cutShort says whether a reload failed because the gateway is stopping.
func cutShort(ctx context.Context, err error) bool { return err != nil && ctx.Err() != nil }

// Listening is closed once Watch has subscribed to schema reloads (and
// reloaded after subscribing): from then on a NOTIFY pgrst is not missed.
func (a *API) Listening() <-chan struct{} { return a.listening }

// Register adds the routes, relative to /rest/v1.
func (a *API) Register(g *echo.Group) {
	g.Any("", a.root)
	g.Any("/", a.root)
	g.Any("/rpc/:fn", a.rpc)
	g.Any("/:table", a.table)
}
