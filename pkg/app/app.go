// Package app assembles the whole gateway from a Config: pools, the auth
// and REST modules, the web app, demo covers and the background workers.
// `labelbase serve`, `labelbase dev` and the acceptance tests all start the
// gateway through it, so they cannot drift apart.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labelbase/labelbase/frontend"
	"github.com/labelbase/labelbase/pkg/auth"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/metrics"
	"github.com/labelbase/labelbase/pkg/realtime"
	"github.com/labelbase/labelbase/pkg/rest"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/storage"
	"github.com/labelbase/labelbase/pkg/token"
)

// App is an assembled gateway.
type App struct {
	Config  *config.Config
	Pools   *db.Pools
	Handler http.Handler
	REST    *rest.API
	// Storage is /storage/v1.
	Storage *storage.API
	// WebBuilt reports whether the real web app (not the fallback page) is
	// embedded.
	WebBuilt bool
	// Metrics is what the admin listener serves (AdminHandler).
	Metrics *metrics.Metrics
	// Router picks the replica of each /rest/v1 read (pkg/db).
	Router *db.Router

	log *slog.Logger
	wg  sync.WaitGroup
	// keys and keyStore are the signing keys and the table they follow.
	keys      *token.KeySet
	keyStore  *token.Store
	accessLog *server.AccessLog
	auth      *auth.API
	// rt serves /realtime/v1; its zero value when REALTIME_ENABLED is
	// off.
	rt realtimeParts
	// traffic is counted for a summary a minute (WithQuietRequests);
	// nil otherwise.
	traffic *server.Traffic
}

// New connects to the database and builds the handler. The schema must be
// migrated already.
func New(ctx context.Context, cfg *config.Config, log *slog.Logger, opts ...Option) (*App, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	pools, listenChecked, err := openPools(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	if err := db.ApplyDefaultGrants(ctx, pools.Owner, cfg.DBSchemas, cfg.DBDefaultGrants); err != nil {
		pools.Close()
		return nil, fmt.Errorf("app: %w", err)
	}
	keys, keyStore, err := loadKeys(ctx, cfg, pools)
	if err != nil {
		pools.Close()
		return nil, err
	}
	verifier := token.NewKeySetVerifier(keys, "", time.Now)
	mailer, inbox, err := newMail(cfg, log)
	if err != nil {
		pools.Close()
		return nil, err
	}
	m := poolMetrics(pools)
	authAPI, err := auth.New(auth.Deps{Config: cfg, Pool: pools.Owner, Verifier: verifier, Log: log, Mailer: mailer,
		Observe: m.AuthEvent})
	if err != nil {
		pools.Close()
		return nil, fmt.Errorf("app: auth: %w", err)
	}
	router, listenTo := routing(cfg, pools, log)
	restAPI, err := rest.New(ctx, rest.Deps{Config: cfg, Pool: pools.REST, Verifier: verifier, Log: log, Observe: o.observe,
		OnReload: m.SchemaReloaded, Router: router, ListenConfig: listenTo})
	if err == nil {
		err = <-listenChecked // the schema listener's connection works
	}
	if err != nil {
		pools.Close()
		return nil, fmt.Errorf("app: rest: %w", err)
	}
	rt := newRealtime(cfg, pools, verifier, log, o.changes)
	storageAPI, err := newStorage(ctx, cfg, pools, verifier, log)
	if err != nil {
		pools.Close()
		return nil, err
	}
	web, built := frontend.Files()
	accessLog := server.NewAccessLog(log, server.DefaultAccessLogQueue, o.logOutput)
	requestLog := requestLogFor(o)
	h := server.New(server.Deps{
		Config: cfg,
		Log:    log,
		Auth:   authAPI.Register,
		REST:   restAPI.Register,
		// Realtime is nil when off.
		Realtime: rt.module(),
		Storage:  storageAPI.Register,
		Routes:   withInbox(demo.Routes, inbox, authAPI.RegisterOpen),
		Web:      web,

		AccessLog:  accessLog,
		RequestLog: requestLog,
		Metrics:    m.Middleware(),
		Ready: func(ctx context.Context) error {
			if err := pools.Owner.Ping(ctx); err != nil {
				return err
			}
			return restAPI.Ready(ctx)
		},
	})
	// After CORS (so a refusal is readable) and before the apikey check.
	h.Use(auth.OpaqueKeyGate(token.APIKeys{Anon: cfg.AnonKey, ServiceRole: cfg.ServiceRoleKey,
		Publishable: cfg.PublishableKey, Secret: cfg.SecretKey, Verifier: verifier}))
	if router.HasReplicas() && cfg.Replicas.ReadYourWritesWindow > 0 {
		h.Use(readYourWrites(router, cfg.Replicas.ReadYourWritesWindow, log))
	}
	return &App{Config: cfg, Pools: pools, Handler: h, REST: restAPI, Storage: storageAPI, WebBuilt: built, Metrics: m, log: log,
		auth: authAPI, keys: keys, keyStore: keyStore, accessLog: accessLog, traffic: requestLog.Traffic, rt: rt, Router: router}, nil
}

// newMail is the mail sender (nil when SMTP is not configured) and, with
// MAIL_DEV_INBOX, the captured inbox, which start-up mentions.
func newMail(cfg *config.Config, log *slog.Logger) (mail.Sender, *mail.Inbox, error) {
	mailer, inbox, err := mail.New(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("app: mail: %w", err)
	}
	// Without mail, auth.New says so at start-up (one line, not two).
	if inbox != nil {
		log.Info("mail is captured, not sent: read it at /_dev/inbox (MAIL_DEV_INBOX)")
	}
	return mailer, inbox, nil
}

// requestLogFor is how request lines are logged: every one at Info, or,
// for a console a person reads, at Debug with a traffic summary.
func requestLogFor(o options) server.RequestLog {
	if !o.quietRequests {
		return server.RequestLog{}
	}
	return server.RequestLog{Level: slog.LevelDebug, Slow: server.DefaultSlowRequest, Traffic: server.NewTraffic()}
}

// loadKeys reads the signing keys every gateway on the database shares.
func loadKeys(ctx context.Context, cfg *config.Config, pools *db.Pools) (*token.KeySet, *token.Store, error) {
	store, err := token.NewStore(pools.Owner, cfg.SigningKeysEncryptionKey)
	if err != nil {
		return nil, nil, fmt.Errorf("app: signing keys: %w", err)
	}
	keys := token.NewKeySet(cfg.JWTSecret, cfg.JWTKeys...)
	stored, err := store.Load(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("app: %w", err)
	}
	if err := token.CheckShadowed(stored, cfg.JWTKeys); err != nil {
		return nil, nil, fmt.Errorf("app: JWT_KEYS: %w", err)
	}
	keys.Replace(stored)
	return keys, store, nil
}

// ReloadKeys re-reads the signing keys now, as the periodic reload would.
func (a *App) ReloadKeys(ctx context.Context) error {
	stored, err := a.keyStore.Load(ctx)
	if err != nil {
		return err
	}
	a.keys.Replace(stored)
	return nil
}

// StartBackground runs the schema-cache watcher (and, unless disabled, the
// daily ingest schedule) until ctx ends.
func (a *App) StartBackground(ctx context.Context, crawl bool) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.REST.Watch(ctx)
	}()
	a.wg.Go(func() { a.Router.Run(ctx) })
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.keyStore.Watch(ctx, a.keys, a.Config.SigningKeysReload, func(err error) {
			a.log.Warn("signing keys: reload failed; keeping the keys loaded before", "err", err)
		})
	}()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.auth.SweepRateLimits(ctx, 10*time.Minute)
	}()
	a.rt.start(ctx, &a.wg)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.Storage.RunSweeps(ctx, time.Hour)
	}()
	if crawl && !a.Config.CrawlDisabled {
		a.startCrawler(ctx)
	}
	if t := a.traffic; t != nil {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			t.Report(ctx, a.log, time.Minute)
		}()
	}
}

// AdminHandler serves the admin listener (ADMIN_LISTEN_ADDR): /metrics,
// and the profiler under /debug/pprof/ when ADMIN_PPROF is on.
func (a *App) AdminHandler() http.Handler { return a.Metrics.Handler(a.Config.AdminPprof) }

// Close waits for the background work (whose context must have ended),
// closes the pools and writes the access-log lines still queued. Call it
// after the HTTP server has stopped.
func (a *App) Close() {
	a.wg.Wait()
	if a.rt.svc != nil {
		// Sockets outlive the HTTP server's shutdown (they are hijacked);
		// close them while the pool is still there for their presences.
		a.rt.svc.Close()
	}
	// Recovery mails go out after their response; let them finish (each
	// is bounded by its send timeout) before the process goes.
	a.auth.WaitMail()
	a.Storage.Wait()
	a.Pools.Close()
	a.accessLog.Close()
}

// Option adjusts an App for a harness or for `labelbase dev`; serve
// passes only WithLogOutput.
type Option func(*options)

type options struct {
	observe       func(sql string, args [][]byte, caller db.Caller)
	quietRequests bool
	changes       realtime.ChangeSource
	logOutput     *server.LogOutput
}

// WithLogOutput tells the app that log writes to out, so the access log
// can write its queued lines to it in one write (server.LogOutput).
func WithLogOutput(out *server.LogOutput) Option {
	return func(o *options) { o.logOutput = out }
}

// WithChangeSource serves postgres_changes from src instead of the
// gateway's own pgchanges engine (tests).
func WithChangeSource(src realtime.ChangeSource) Option {
	return func(o *options) { o.changes = src }
}

// Realtime is the /realtime/v1 service, nil when REALTIME_ENABLED is off.
func (a *App) Realtime() *realtime.Service { return a.rt.svc }

// WithQuietRequests is for a console a person reads (`labelbase dev`):
// each request's line is logged at Debug (LOG_LEVEL=debug shows them),
// a slow request at Warn, server errors as always, and one Info line a
// minute sums up the traffic.
func WithQuietRequests() Option {
	return func(o *options) { o.quietRequests = true }
}

// WithStatementObserver hands every /rest/v1 main statement to fn before it
// runs (see rest.Deps.Observe).
func WithStatementObserver(fn func(sql string, args [][]byte, caller db.Caller)) Option {
	return func(o *options) { o.observe = fn }
}
