package bench

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"
)

// The pREST the benchmark compares with: one module version, pinned here
// and nowhere else. It is built from the module proxy's source the first
// time and cached, never vendored or committed.
const (
	prestModule  = "github.com/prest/prest/v2"
	prestVersion = "v2.4.2"
	prestMain    = prestModule + "/cmd/prestd"
)

// prestBinary is a prestd of prestVersion: path when one is given (checked
// to be that version), else the cached build, else a fresh build into the
// cache (os.UserCacheDir()/labelbase/bench/prest-<version>/prestd).
func prestBinary(ctx context.Context, path string, log *slog.Logger) (string, error) {
	if path != "" {
		return path, checkPrest(path)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "labelbase", "bench", "prest-"+prestVersion)
	bin := filepath.Join(dir, "prestd")
	if checkPrest(bin) == nil {
		return bin, nil
	}
	log.Warn("building pREST once into the cache (about two minutes)", "version", prestVersion, "into", bin)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := buildPrest(ctx, bin); err != nil {
		return "", err
	}
	return bin, checkPrest(bin)
}

// checkPrest reads the binary's build information: it must be prestd from
// prestModule at prestVersion, so the figures name what actually ran.
func checkPrest(bin string) error {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return fmt.Errorf("bench: pREST binary %s: %w", bin, err)
	}
	if bi.Path != prestMain {
		return fmt.Errorf("bench: %s is %q, not %s", bin, bi.Path, prestMain)
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path == prestModule {
			if m.Version != prestVersion {
				return fmt.Errorf("bench: %s is pREST %s, want %s", bin, m.Version, prestVersion)
			}
			return nil
		}
	}
	return fmt.Errorf("bench: %s names no %s module", bin, prestModule)
}

// prestGoMod is the whole of the throwaway module the build runs in. `go
// install module@version` cannot be used: it asks the proxy for the
// module's version list (a deprecation check), which the proxy refuses
// here, while a require of the exact version is served.
const prestGoMod = "module prestbench\n\ngo 1.26\n\nrequire " + prestModule + " " + prestVersion + "\n"

// buildPrest builds prestd into bin: in a temporary module that requires
// prestVersion (go build -mod=mod resolves its dependencies from pREST's own
// go.mod), written beside bin first and renamed, so an interrupted build
// leaves no binary behind. The build is silent for minutes, so a line every
// five seconds says it is still going (as tools/heartbeat.sh does for the
// Taskfile's long steps).
func buildPrest(ctx context.Context, bin string) error {
	mod, err := os.MkdirTemp("", "labelbase-prest-build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(mod)
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(prestGoMod), 0o644); err != nil {
		return err
	}
	logPath := filepath.Join(mod, "build.log")
	out, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer out.Close()
	tmp := bin + ".partial"
	cmd := exec.CommandContext(ctx, "go", "build", "-v", "-mod=mod", "-o", tmp, prestMain)
	cmd.Dir, cmd.Stdout, cmd.Stderr = mod, out, out
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	stop := heartbeat("building pREST "+prestVersion, logPath)
	err = cmd.Run()
	stop()
	if err != nil {
		os.Remove(tmp)
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("bench: building pREST %s: %w\n%s", prestVersion, err, log)
	}
	return os.Rename(tmp, bin)
}

// heartbeat prints to stderr, every five seconds until stop is called, how
// long label has run and the last line of its log.
func heartbeat(label, logPath string) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				b, _ := os.ReadFile(logPath)
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				fmt.Fprintf(os.Stderr, "%s: %s, %s\n", label, time.Since(start).Round(time.Second), lines[len(lines)-1])
			}
		}
	}()
	return func() { close(done) }
}

// startPrest runs prestd on the benchmark's database as a production
// deployment would, with the gateway's pool size. What is set, and why:
//   - PREST_PG_URL: the superuser URL the harness loaded the data with
//     (pREST has no per-request role: no RLS, as in any pREST deployment
//     without its own access rules);
//   - PREST_PG_MAXOPENCONN = PREST_PG_MAXIDLECONN = pool: the same pool as
//     the gateway's REST pool; the idle default is 0, which closes every
//     connection after its request, and no production setup keeps that;
//   - PREST_PG_CACHE=true: its prepared-statement cache (the default);
//   - PREST_DEBUG=false, PREST_LOG_LEVEL=info: no debug logging (the log
//     level defaults to debug); its request logger cannot be turned off and
//     writes a line per request to the log file, as the gateway does;
//   - PREST_JWT_DEFAULT=false, PREST_CACHE_ENABLED=false: no token check
//     and no response cache (the defaults, said explicitly);
//   - PREST_STUDIO_ENABLED=false: no admin UI in production;
//   - PREST_QUERIES_LOCATION in dir: it creates that directory at start,
//     ~/queries by default;
//   - PREST_CONF in dir, absent: no prest.toml from the working directory.
func startPrest(ctx context.Context, bin, dbURL string, pool int, dir string) (*child, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	p := fmt.Sprint(pool)
	settings := map[string]string{
		"PREST_PG_URL": dbURL, "PREST_HTTP_HOST": "127.0.0.1", "PREST_HTTP_PORT": fmt.Sprint(port),
		"PREST_PG_MAXOPENCONN": p, "PREST_PG_MAXIDLECONN": p, "PREST_PG_CACHE": "true", "PREST_PG_SINGLE": "true",
		"PREST_DEBUG": "false", "PREST_LOG_LEVEL": "info", "PREST_JWT_DEFAULT": "false", "PREST_CACHE_ENABLED": "false",
		"PREST_STUDIO_ENABLED": "false", "PREST_QUERIES_LOCATION": filepath.Join(dir, "queries"),
		"PREST_CONF": filepath.Join(dir, "prest.toml"),
	}
	return startChild(ctx, "prest", bin, nil, childEnv(settings), dir, port, "/_health")
}

// prestTarget is pREST's side of the client: no apikey, no bearer token.
func prestTarget(c *child, client *http.Client) target { return target{base: c.base, client: client} }

// databaseName is the database a postgres:// URL names: pREST's paths
// start with it.
func databaseName(dbURL string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	name := strings.TrimPrefix(u.Path, "/")
	if name == "" {
		return "", fmt.Errorf("bench: %s names no database", u.Redacted())
	}
	return name, nil
}
