package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
)

// child is a server the benchmark runs as its own process: the gateway
// built from this tree, or a peer (pREST). A separate process is what makes
// the comparison fair: its CPU is read apart from the client's (this
// process) and PostgreSQL's, for both sides alike.
type child struct {
	name string
	cmd  *exec.Cmd
	base string
	log  string
	// exited is closed once the process has been waited for; err is its
	// exit status then.
	exited chan struct{}
	err    error
}

// childReadyWithin bounds a server's start: migrations are already applied,
// so anything slower than this is a server that will not come up.
const childReadyWithin = 60 * time.Second

// startChild runs bin with args and exactly env (nothing inherited: a
// DATABASE_URL or PREST_* in the caller's environment must not reach the
// servers) in dir, its output in dir/<name>.log, and waits until
// GET ready answers 200 on 127.0.0.1:port.
func startChild(ctx context.Context, name, bin string, args, env []string, dir string, port int, ready string) (*child, error) {
	logPath := filepath.Join(dir, name+".log")
	out, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, dir, out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("bench: starting %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), log: logPath, exited: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		out.Close()
		close(c.exited)
	}()
	if err := c.waitReady(ctx, ready); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// waitReady polls the readiness path until it answers 200, the process
// exits, or childReadyWithin passes; the error carries the log's tail.
func (c *child) waitReady(ctx context.Context, path string) error {
	ctx, cancel := context.WithTimeout(ctx, childReadyWithin)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
		if err != nil {
			return err
		}
		if res, err := client.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-c.exited:
			return fmt.Errorf("bench: %s exited before it was ready (%w); its log:\n%s", c.name, c.err, c.tail())
		case <-ctx.Done():
			return fmt.Errorf("bench: %s not ready at %s after %s: %w; its log:\n%s", c.name, path, childReadyWithin, ctx.Err(), c.tail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// cpu is the CPU the server process has used so far (all its threads).
func (c *child) cpu() time.Duration { return processCPU(strconv.Itoa(c.cmd.Process.Pid)) }

// stop asks the server to shut down (SIGTERM, as a service manager would)
// and kills it if it has not exited within ten seconds.
func (c *child) stop() {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// tail is the end of the server's log, for an error message.
func (c *child) tail() string {
	b, _ := os.ReadFile(c.log)
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}

// freePort is a TCP port on 127.0.0.1 that nothing listened on a moment
// ago; the server is started on it right after.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// childEnv is the environment of a server process: only what a process
// needs to run (PATH, HOME, TMPDIR, locale) from ours, then settings.
func childEnv(settings map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "LANG", "LC_ALL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for k, v := range settings {
		env = append(env, k+"="+v)
	}
	return env
}

// gatewayBinary compiles cmd/labelbase from this tree into dir, as the
// Taskfile builds it (GOWORK=off), or takes bin when it is set, and returns
// the binary's path and the line `labelbase version` prints for it.
func gatewayBinary(ctx context.Context, bin, dir string) (string, string, error) {
	built := bin == ""
	if built {
		bin = filepath.Join(dir, "labelbase")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/labelbase/labelbase/cmd/labelbase")
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", "", fmt.Errorf("bench: building cmd/labelbase (run from inside the repository): %w\n%s", err, out)
		}
	}
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return "", "", fmt.Errorf("bench: %s version: %w", bin, err)
	}
	version := strings.TrimSpace(string(out))
	if built && strings.Contains(version, "revision unknown") {
		version += treeRevision(ctx)
	}
	return bin, version, nil
}

// treeRevision names the checkout the gateway was built from when the
// build could not stamp it (GOFLAGS=-buildvcs=false, a git worktree):
// ", tree at <commit>", plus " (modified)" with uncommitted changes; ""
// outside git.
func treeRevision(ctx context.Context) string {
	rev, err := exec.CommandContext(ctx, "git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return ""
	}
	s := ", tree at " + strings.TrimSpace(string(rev))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		s += " (modified)"
	}
	return s
}

// startGatewayProcess runs `labelbase serve` on the benchmark's database
// with the settings of the in-process gateway plus what a production
// deployment sets: a request line per request at info in JSON (to its log
// file), migrations left alone (the harness applied them). It returns the
// process and the member's target on it.
func startGatewayProcess(ctx context.Context, o Options, bin, url, user, dir string, client *http.Client) (*child, target, error) {
	port, err := freePort()
	if err != nil {
		return nil, target{}, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	settings := gatewaySettings(o, url, map[string]string{
		"LISTEN_ADDR": addr, "SITE_URL": "http://" + addr, "LOG_LEVEL": "info", "LOG_FORMAT": "json",
		"STORAGE_FILE_PATH": filepath.Join(dir, "storage"),
	})
	if o.GatewayAdmin != "" {
		settings["ADMIN_LISTEN_ADDR"], settings["ADMIN_PPROF"] = o.GatewayAdmin, "true"
	}
	for k, v := range o.GatewayEnv {
		settings[k] = v
	}
	// The same settings give the anon key the process derives from
	// JWT_SECRET.
	cfg, err := config.Load(func(k string) string { return settings[k] })
	if err != nil {
		return nil, target{}, err
	}
	tok, err := memberToken(user)
	if err != nil {
		return nil, target{}, err
	}
	c, err := startChild(ctx, "labelbase", bin, []string{"serve", "--migrate=false"}, childEnv(settings), dir, port, "/readyz")
	if err != nil {
		return nil, target{}, err
	}
	return c, target{base: c.base, client: client, apikey: cfg.AnonKey, bearer: tok}, nil
}

// errNoPeer is a -peer the harness does not know.
var errNoPeer = errors.New("bench: unknown peer (known: prest)")
