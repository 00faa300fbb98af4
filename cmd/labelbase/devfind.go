package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
)

// This file is the one way every command finds its server: the settings
// in the environment when they name a database, or else the `labelbase
// dev` running with its data in this directory (LABELBASE_DATA_DIR or
// .data). A running dev publishes what a command needs to reach it in
// devStateFile; commands read settings only through cliGetenv, so `crawl`,
// `health`, `invite`, `user`, `keys` and the rest cannot disagree on which
// server they talk to.

// devStateFile is written by `labelbase dev` into its data directory while
// it runs and removed when it stops (mode 0600, like the secrets beside it).
const devStateFile = "dev.json"

// devState is what a running dev publishes.
type devState struct {
	PID         int    `json:"pid"`
	DatabaseURL string `json:"database_url"`
	// JWTSecret is the secret the dev signs with (JWT_SECRET from its
	// environment or the generated one in its data directory), so the
	// keys the CLI derives are the ones the dev accepts.
	JWTSecret string `json:"jwt_secret"`
	// SiteURL is the dev's SITE_URL: links the CLI prints point at it.
	SiteURL string `json:"site_url,omitempty"`
	// URL is where the gateway answers; empty until it listens.
	URL string `json:"url,omitempty"`
}

func (s *devState) write(dir string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	// Written aside and renamed, so a command never reads half a file.
	tmp := filepath.Join(dir, devStateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, devStateFile))
}

func removeDevState(dir string) { _ = os.Remove(filepath.Join(dir, devStateFile)) }

// errNoDev says why no running dev was used.
var errNoDev = errors.New("no labelbase dev is running here")

// findDev reads the state of the dev running with its data in devDataDir.
// A state file left by a dev that was killed (its pid is gone) does not
// count.
func findDev() (*devState, error) {
	dir := devDataDir()
	b, err := os.ReadFile(filepath.Join(dir, devStateFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w (no %s in %s)", errNoDev, devStateFile, dir)
		}
		return nil, err
	}
	var s devState
	if err := json.Unmarshal(b, &s); err != nil || s.DatabaseURL == "" {
		return nil, fmt.Errorf("%w (%s is unreadable)", errNoDev, filepath.Join(dir, devStateFile))
	}
	if s.PID <= 0 || !processAlive(s.PID) {
		return nil, fmt.Errorf("%w (the one that wrote %s, pid %d, has stopped)", errNoDev, filepath.Join(dir, devStateFile), s.PID)
	}
	return &s, nil
}

// processAlive reports whether pid runs (signal 0 checks without sending).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// settingsGiven reports whether the environment names a database: then it
// alone configures the command, and no dev is looked for.
func settingsGiven() bool {
	return os.Getenv("DATABASE_URL") != "" || os.Getenv("DATABASE_URL_FILE") != ""
}

// cliGetenv is the environment every command reads its settings from: the
// process environment, where a setting that is not set comes from the
// running dev (its database, JWT secret, SITE_URL and address). With no
// dev running and no DATABASE_URL, JWT_SECRET still comes from the dev's
// data directory, so `labelbase keys` works while the dev is stopped.
func cliGetenv(log *slog.Logger) config.Getenv {
	if settingsGiven() {
		return os.Getenv
	}
	dev, err := findDev()
	if err != nil {
		log.Debug("not using a labelbase dev", "reason", err)
	} else {
		log.Debug("using the running labelbase dev", "data_dir", devDataDir(), "pid", dev.PID, "url", dev.URL)
	}
	return func(k string) string {
		if v := os.Getenv(k); v != "" || os.Getenv(k+"_FILE") != "" {
			return v
		}
		if dev != nil {
			switch k {
			case "DATABASE_URL":
				return dev.DatabaseURL
			case "JWT_SECRET":
				return dev.JWTSecret
			case "SITE_URL":
				return dev.SiteURL
			case "LISTEN_ADDR":
				if u, err := url.Parse(dev.URL); err == nil && u.Host != "" {
					return u.Host
				}
			}
			return ""
		}
		if k == "JWT_SECRET" {
			b, _ := os.ReadFile(filepath.Join(devDataDir(), devSecretTxt))
			return strings.TrimSpace(string(b))
		}
		return ""
	}
}

// noServerHint is added to a missing-settings error: where a command
// would have looked for a dev.
func noServerHint(err error) error {
	if err == nil || settingsGiven() {
		return err
	}
	dir, _ := filepath.Abs(devDataDir())
	return fmt.Errorf("%w\n(no settings given, and no `labelbase dev` is running with its data in %s: start one there, or set DATABASE_URL and JWT_SECRET)", err, dir)
}

// cliConfig is the full configuration (as `serve` would load it) for
// commands that need more than a database: crawl, user.
func cliConfig(log *slog.Logger) (*config.Config, error) {
	cfg, err := config.Load(cliGetenv(log))
	return cfg, noServerHint(err)
}

// databaseURL is the database of the settings or of the running dev, for
// commands that need nothing else (migrate, invite, demo, scale).
func databaseURL(log *slog.Logger) (string, error) {
	u, err := config.DatabaseURL(cliGetenv(log))
	return u, noServerHint(err)
}

// cliPoolSize is a command's pool (the crawler's too): its statements run
// one at a time.
const cliPoolSize = 4

// openPool connects to databaseURL and checks that it answers. With
// DB_PREPARED_STATEMENTS=false (DATABASE_URL is a transaction pooler that
// cannot keep prepared statements) the pool is in exec mode, as the
// gateway's are.
func openPool(ctx context.Context, log *slog.Logger) (*pgxpool.Pool, error) {
	u, err := databaseURL(log)
	if err != nil {
		return nil, err
	}
	prepared, err := config.PreparedStatements(cliGetenv(log))
	if err != nil {
		return nil, err
	}
	pool, err := db.OpenPool(ctx, u, cliPoolSize, !prepared)
	if err != nil {
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	return pool, nil
}

// gatewayAddr is the address `health` probes: LISTEN_ADDR, or the running
// dev's, or :8080; a wildcard host is asked on the loopback address.
func gatewayAddr(log *slog.Logger) (string, error) {
	addr := cliGetenv(log)("LISTEN_ADDR")
	if addr == "" {
		addr = ":8080"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("LISTEN_ADDR: %w", err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
