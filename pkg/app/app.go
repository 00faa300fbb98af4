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
	"github.com/labelbase/labelbase/pkg/rest"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

// App is an assembled gateway.
type App struct {
	Config  *config.Config
	Pools   *db.Pools
	Handler http.Handler
	REST    *rest.API
	// WebBuilt reports whether the real web app (not the fallback page) is
	// embedded.
	WebBuilt bool

	log       *slog.Logger
	wg        sync.WaitGroup
	accessLog *server.AccessLog
}

// New connects to the database and builds the handler. The schema must be
// migrated already.
func New(ctx context.Context, cfg *config.Config, log *slog.Logger) (*App, error) {
	pools, err := db.Open(ctx, cfg.DatabaseURL, cfg.RESTDatabaseURL, cfg.DBPoolSize)
	if err != nil {
		return nil, err
	}
	verifier := token.NewVerifier(cfg.JWTSecret, "", time.Now)
	authAPI, err := auth.New(auth.Deps{Config: cfg, Pool: pools.Owner, Verifier: verifier, Log: log})
	if err != nil {
		pools.Close()
		return nil, fmt.Errorf("app: auth: %w", err)
	}
	restAPI, err := rest.New(ctx, rest.Deps{Config: cfg, Pool: pools.REST, Verifier: verifier, Log: log})
	if err != nil {
		pools.Close()
		return nil, fmt.Errorf("app: rest: %w", err)
	}
	web, built := frontend.Files()
	accessLog := server.NewAccessLog(log, server.DefaultAccessLogQueue)
	h := server.New(server.Deps{
		Config: cfg,
		Log:    log,
		Pool:   pools.Owner,
		Auth:   authAPI.Register,
		REST:   restAPI.Register,
		Routes: demo.Routes,
		Web:    web,

		AccessLog: accessLog,
	})
	return &App{Config: cfg, Pools: pools, Handler: h, REST: restAPI, WebBuilt: built, log: log, accessLog: accessLog}, nil
}

// StartBackground runs the schema-cache watcher (and, unless disabled, the
// daily ingest schedule) until ctx ends.
func (a *App) StartBackground(ctx context.Context, crawl bool) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.REST.Watch(ctx)
	}()
	if crawl && !a.Config.CrawlDisabled {
		a.startCrawler(ctx)
	}
}

// Close waits for the background work (whose context must have ended),
// closes the pools and writes the access-log lines still queued. Call it
// after the HTTP server has stopped.
func (a *App) Close() {
	a.wg.Wait()
	a.Pools.Close()
	a.accessLog.Close()
}
