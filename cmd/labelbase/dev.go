package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/invite"
	"github.com/labelbase/labelbase/pkg/pgcluster"
)

const (
	devDatabase  = "labelbase"
	devSecretTxt = "jwt-secret"
)

// devDataDir is where `labelbase dev` keeps its state: LABELBASE_DATA_DIR,
// or .data in the working directory.
func devDataDir() string {
	if d := os.Getenv("LABELBASE_DATA_DIR"); d != "" {
		return d
	}
	return ".data"
}

// runDev is the zero-setup local run: a private PostgreSQL cluster in the
// data directory (created on first start, reused after), migrations, the
// demo catalogue when the catalogue is empty, a fresh invite code, and the
// gateway on LISTEN_ADDR (default :8080). Ctrl-C stops the server and then
// the cluster.
func runDev(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) > 0 {
		return usageError{"dev takes no arguments; configure it with environment variables"}
	}
	dir, err := filepath.Abs(devDataDir())
	if err != nil {
		return err
	}
	if err := takeOverDevDir(ctx, dir); err != nil {
		return err
	}
	defer pgcluster.Release(dir)
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "postgres"), Log: log})
	if err != nil {
		return err
	}
	defer stopDevCluster(cluster, log)
	if err := ensureDatabase(ctx, cluster.URL("postgres"), devDatabase); err != nil {
		return err
	}
	cfg, err := devConfig(dir, cluster.URL(devDatabase))
	if err != nil {
		return err
	}
	if err := migrateUp(cfg.DatabaseURL, log); err != nil {
		return err
	}
	// From here on, commands in this directory find this dev (devfind.go).
	state := &devState{PID: os.Getpid(), DatabaseURL: cfg.DatabaseURL, JWTSecret: cfg.JWTSecret, SiteURL: cfg.SiteURL}
	if err := state.write(dir); err != nil {
		return err
	}
	defer removeDevState(dir)
	code, err := prepareDevData(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return err
	}
	console := newDevConsole(stdout, log)
	return serve(ctx, cfg, console.log, func(addr net.Addr) {
		state.URL = listenURL(addr)
		if err := state.write(dir); err != nil {
			log.Warn("commands next to this dev will not find its address", "err", err)
		}
		console.banner(addr, code, cfg.MailDevInbox)
	}, app.WithQuietRequests())
}

// takeOverDevDir claims the data directory for this dev. A dev killed
// without its clean shutdown leaves PostgreSQL running; stop that one, but
// never one a running dev still owns.
func takeOverDevDir(ctx context.Context, dir string) error {
	if err := pgcluster.TakeOver(ctx, dir); err != nil {
		if errors.Is(err, pgcluster.ErrInUse) {
			return fmt.Errorf("labelbase dev is already running with data in %s: %w", dir, err)
		}
		return err
	}
	return nil
}

// stopDevCluster stops the dev's PostgreSQL when the dev ends; there is
// nobody left to return an error to, so it is logged.
func stopDevCluster(cluster *pgcluster.Cluster, log *slog.Logger) {
	if err := cluster.Stop(); err != nil {
		log.Error("stopping PostgreSQL", "err", err)
	} else {
		log.Info("PostgreSQL stopped")
	}
}

// devConfig is the dev's configuration: the environment, except that the
// database is always the dev cluster's and JWT_SECRET, SITE_URL and
// MAIL_DEV_INBOX have dev defaults.
func devConfig(dir, dbURL string) (*config.Config, error) {
	secret, err := devSecret(dir)
	if err != nil {
		return nil, err
	}
	// SITE_URL, unless set, is where this dev really answers (recovery
	// links and redirects point there); the CLI reads it back from the dev
	// state file (devfind.go).
	site, listen := os.Getenv("SITE_URL"), os.Getenv("LISTEN_ADDR")
	if site == "" {
		if listen == "" {
			listen = ":8080"
		}
		if site, listen, err = devSiteURL(listen); err != nil {
			return nil, err
		}
	}
	return config.Load(func(k string) string {
		switch k {
		case "SITE_URL":
			return site
		case "LISTEN_ADDR":
			return listen
		case "DATABASE_URL":
			return dbURL
		case "REST_DATABASE_URL", "DATABASE_URL_FILE", "REST_DATABASE_URL_FILE":
			return ""
		case "JWT_SECRET":
			if v := os.Getenv(k); v != "" {
				return v
			}
			return secret
		case "STORAGE_FILE_PATH":
			// Objects live in the data directory, beside its database.
			if v := os.Getenv(k); v != "" {
				return v
			}
			return filepath.Join(dir, "storage")
		case "MAIL_DEV_INBOX":
			// Capture mail unless a mail server is configured.
			if os.Getenv(k) == "" && os.Getenv("SMTP_HOST") == "" {
				return "true"
			}
		}
		return os.Getenv(k)
	})
}

// devBanner tells the developer where the gateway is and how to sign up;
// devConsole prints it again once the log has scrolled it away.
func devBanner(w io.Writer, addr net.Addr, code string, inbox bool) {
	fmt.Fprintf(w, "\nLabelbase is running: %s\n", listenURL(addr))
	fmt.Fprintf(w, "Invite code (5 sign-ups, 7 days): %s\n", code)
	if inbox {
		fmt.Fprintf(w, "Mail (password recovery) is captured at %s/_dev/inbox\n", listenURL(addr))
	}
	fmt.Fprintf(w, "More codes: %s invite create (in this directory, no settings needed)   •   Stop: Ctrl-C\n\n", selfCommand())
}

// listenURL is the URL a browser on this machine opens for the address the
// server listens on: localhost for a wildcard address (":8080"), else the
// address itself, so LISTEN_ADDR=127.0.0.1:8099 or [::1]:0 print what
// really answers.
func listenURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	host := "localhost"
	if tcp.IP != nil && !tcp.IP.IsUnspecified() {
		host = tcp.IP.String()
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

func ensureDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	return err
}

// devSecret keeps a random JWT secret in the data directory, so sessions
// survive restarts of `labelbase dev`.
func devSecret(dir string) (string, error) {
	path := filepath.Join(dir, devSecretTxt)
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return "", err
	}
	s := hex.EncodeToString(buf)
	return s, os.WriteFile(path, []byte(s+"\n"), 0o600)
}

func prepareDevData(ctx context.Context, dbURL string, log *slog.Logger) (string, error) {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return "", err
	}
	defer pool.Close()
	loaded, err := demo.Load(ctx, pool, time.Now())
	if err != nil {
		return "", err
	}
	if loaded {
		log.Info("loaded the demo catalogue (never crawled)", "labels", demo.Labels, "releases", demo.Releases)
	} else if n, err := demo.MarkExisting(ctx, pool, time.Now()); err != nil {
		return "", err
	} else if n > 0 {
		log.Info("marked the demo labels of an older data directory so the crawler skips them", "labels", n)
	}
	c, err := invite.Create(ctx, pool, invite.Options{MaxUses: 5, TTL: 7 * 24 * time.Hour, Note: "printed by labelbase dev"})
	if err != nil {
		return "", err
	}
	return c.Code, nil
}
