package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNoPgBouncer means the pgbouncer binary is not installed (Debian:
// apt-get install pgbouncer; the Taskfile's deps:pgbouncer does it).
var ErrNoPgBouncer = errors.New("pgcluster: pgbouncer is not installed (apt-get install pgbouncer, or: go tool task deps:pgbouncer)")

// BouncerOptions configure a PgBouncer in front of a cluster.
type BouncerOptions struct {
	// Dir holds its configuration and log.
	Dir string
	// Databases maps a name clients connect to onto a login: each entry is
	// the role (and its password) PgBouncer logs in as, on database DB.
	Databases map[string]BouncerLogin
	// PoolSize is default_pool_size: server connections per database.
	// Small values force clients to switch server connections between
	// transactions.
	PoolSize int
	// Mode is pool_mode; "" is transaction.
	Mode string
}

// BouncerLogin is one [databases] entry's server login.
type BouncerLogin struct {
	DB, User, Password string
}

// Bouncer is a running PgBouncer.
type Bouncer struct {
	cmd  *exec.Cmd
	port int
	done chan struct{}
}

// StartPgBouncer runs Debian's pgbouncer in front of c with auth_type any:
// clients connect without a password and each database entry logs in as
// its configured role.
func (c *Cluster) StartPgBouncer(ctx context.Context, o BouncerOptions) (*Bouncer, error) {
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/pgbouncer"); statErr != nil {
			return nil, ErrNoPgBouncer
		}
		bin = "/usr/sbin/pgbouncer"
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	if c.runAs != nil {
		if err := os.Chown(dir, int(c.runAs.Uid), int(c.runAs.Gid)); err != nil {
			return nil, fmt.Errorf("pgcluster: %w", err)
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	ini := c.bouncerINI(o, port, dir)
	conf := filepath.Join(dir, "pgbouncer.ini")
	if err := c.writeOwned(conf, ini); err != nil {
		return nil, err
	}
	// PgBouncer refuses to run as root, like PostgreSQL.
	cmd := exec.Command(bin, conf)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if c.runAs != nil {
		cmd.SysProcAttr.Credential = c.runAs
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pgcluster: pgbouncer: %w", err)
	}
	bo := &Bouncer{cmd: cmd, port: port, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(bo.done) }()
	if err := bo.waitListening(ctx, dir); err != nil {
		return nil, err
	}
	return bo, nil
}

// URL connects to database name through the bouncer.
func (b *Bouncer) URL(name string) string {
	u := url.URL{Scheme: "postgres", User: url.User("client"), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(b.port)),
		Path: "/" + name, RawQuery: "sslmode=disable"}
	return u.String()
}

// Port is where the bouncer listens.
func (b *Bouncer) Port() int { return b.port }

// Stop ends the bouncer and waits for it.
func (b *Bouncer) Stop() {
	_ = b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.done:
	case <-time.After(5 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}

// bouncerINI is pgbouncer.ini: one [databases] entry per login (sorted,
// so the file is stable), the listener and the pool mode.
func (c *Cluster) bouncerINI(o BouncerOptions, port int, dir string) string {
	mode := o.Mode
	if mode == "" {
		mode = "transaction"
	}
	var b strings.Builder
	b.WriteString("[databases]\n")
	names := make([]string, 0, len(o.Databases))
	for n := range o.Databases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		l := o.Databases[n]
		fmt.Fprintf(&b, "%s = host=127.0.0.1 port=%d dbname=%s user=%s password=%s\n", n, c.port, l.DB, l.User, l.Password)
	}
	fmt.Fprintf(&b, `[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = %s
default_pool_size = %d
max_client_conn = 500
server_login_retry = 1
logfile = %s
ignore_startup_parameters = extra_float_digits
`, port, mode, max(o.PoolSize, 1), filepath.Join(dir, "pgbouncer.log"))
	return b.String()
}

// waitListening waits up to 10 s for the bouncer's port to accept, and
// reports its log's tail if it exits first.
func (bo *Bouncer) waitListening(ctx context.Context, dir string) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(bo.port)), 200*time.Millisecond)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case <-bo.done:
			logTail, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			return fmt.Errorf("pgcluster: pgbouncer exited: %s", tail(logTail))
		case <-ctx.Done():
			bo.Stop()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			bo.Stop()
			return errors.New("pgcluster: pgbouncer did not start listening within 10 s")
		}
	}
}
