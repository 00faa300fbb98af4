package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/server"
)

func loadConfig() (*config.Config, error) {
	return config.Load(os.Getenv)
}

// runServe serves in production. out is the stream log writes to: the
// access log batches its lines into it.
func runServe(ctx context.Context, args []string, log *slog.Logger, out *server.LogOutput) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	doMigrate := fs.Bool("migrate", true, "apply pending migrations before serving")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	tuneGC(os.LookupEnv)
	if *doMigrate {
		// Migrations take a session-level lock: never through a pooler.
		if err := migrateUp(cfg.DirectOrPrimary(), log); err != nil {
			return err
		}
	}
	return serve(ctx, cfg, log, nil, app.WithLogOutput(out))
}

// gcPercent is the garbage collector's target for `serve` when the
// environment does not set GOGC. The gateway keeps little alive (about
// 5 MB under load: schema cache, pools, metrics) and allocates ~13 KB per
// request, so at Go's default of 100 it collected every ~450 requests,
// and collecting was 5-6.5 % of its CPU in profiles of member PK reads.
// At 400 it collects a quarter as often, 2.6-2.8 % of its CPU, and the
// heap's target is about 23 MB instead of 9 (docs/performance.md). GOGC in
// the environment, a number or off, is the Go runtime's own setting and
// wins; GOMEMLIMIT caps the heap either way.
const gcPercent = 400

// tuneGC sets gcPercent unless lookup finds GOGC, and reports whether it
// did.
func tuneGC(lookup func(string) (string, bool)) bool {
	if _, set := lookup("GOGC"); set {
		return false
	}
	debug.SetGCPercent(gcPercent)
	return true
}

// serve runs the gateway until ctx ends. SIGUSR1 reloads the REST schema
// cache, as it does for PostgREST. opts adjust the app (dev's quiet
// request log).
func serve(ctx context.Context, cfg *config.Config, log *slog.Logger, ready func(net.Addr), opts ...app.Option) error {
	a, err := app.New(ctx, cfg, log, opts...)
	if err != nil {
		return err
	}
	bgCtx, cancel := context.WithCancel(ctx)
	defer a.Close()
	defer cancel()
	a.StartBackground(bgCtx, true)

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	go func() {
		for {
			select {
			case <-bgCtx.Done():
				return
			case <-usr1:
				if err := a.REST.Reload(bgCtx); err != nil {
					log.Error("schema cache reload failed", "err", err)
				} else {
					log.Info("schema cache reloaded (SIGUSR1)")
				}
			}
		}
	}()
	if !a.WebBuilt {
		log.Warn("this binary has no built web app; / serves a placeholder (build it with: go tool task build)")
	}
	// The admin listener shares the gateway's lifetime: if it cannot bind,
	// the gateway stops too rather than run unobserved.
	ctx, stopAll := context.WithCancelCause(ctx)
	defer stopAll(nil)
	if cfg.AdminListenAddr != "" {
		go func() {
			err := server.Serve(ctx, cfg.AdminListenAddr, a.AdminHandler(), log, func(addr net.Addr) {
				log.Info("admin listener: /metrics", "addr", addr.String(), "pprof", cfg.AdminPprof)
			})
			if err != nil {
				stopAll(fmt.Errorf("admin listener: %w", err))
			}
		}()
	}
	log.Info("labelbase listening", "addr", cfg.ListenAddr)
	err = server.Serve(ctx, cfg.ListenAddr, a.Handler, log, func(addr net.Addr) {
		if why := siteURLMismatch(cfg.SiteURL, addr); why != "" {
			log.Warn(why)
		}
		if ready != nil {
			ready(addr)
		}
	})
	if cause := context.Cause(ctx); err == nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

func migrateUp(databaseURL string, log *slog.Logger) error {
	m, err := migrate.New(databaseURL)
	if err != nil {
		return err
	}
	defer m.Close()
	if err := m.Up(); err != nil {
		return err
	}
	v, _, err := m.Version()
	if err != nil {
		return err
	}
	log.Info("database schema is up to date", "version", v)
	return nil
}

// runHealth asks the gateway on LISTEN_ADDR (or the running dev's, see
// gatewayAddr) for /livez (or, with --ready, /readyz), for container health
// checks in images that have no curl. Liveness is the default: a check that
// restarts the container must not fail because the database is restarting.
func runHealth(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("health", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ready := fs.Bool("ready", false, "ask /readyz: is the database reachable and the schema cache loaded")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	path := "/livez"
	if *ready {
		path = "/readyz"
	}
	addr, err := gatewayAddr(log)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u := "http://" + addr + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	// The URL says which gateway answered: LISTEN_ADDR's or the dev's.
	fmt.Fprintf(stdout, "ok (%s)\n", u)
	return nil
}
