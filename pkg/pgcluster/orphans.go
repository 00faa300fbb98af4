package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownerFile names the process that owns a throwaway cluster's directory.
const ownerFile = "owner.pid"

// ClaimDir records the current process as the owner of a throwaway
// cluster directory, so ReapOrphans can tell when it died.
func ClaimDir(dir string) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
}

// ReapOrphans stops and removes throwaway clusters whose owner died without
// stopping them: a test binary killed by its timeout or by a signal runs no
// deferred cleanup, and its server would otherwise run until reboot. pattern
// is a filepath.Glob of claimed directories, each holding the cluster in
// sub (as Options.Dir = filepath.Join(dir, sub)).
func ReapOrphans(ctx context.Context, pattern, sub string) (reaped int, err error) {
	dirs, err := filepath.Glob(pattern)
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, dir := range dirs {
		b, rerr := os.ReadFile(filepath.Join(dir, ownerFile))
		if rerr != nil {
			continue // not claimed (yet): leave it to its creator
		}
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if perr != nil || pid <= 0 || alive(pid) {
			continue
		}
		if serr := stopDir(ctx, filepath.Join(dir, sub)); serr != nil {
			errs = append(errs, serr)
			continue
		}
		if rerr := os.RemoveAll(dir); rerr != nil {
			errs = append(errs, rerr)
			continue
		}
		reaped++
	}
	return reaped, errors.Join(errs...)
}

// alive reports whether pid runs. A zombie counts as dead: in containers
// whose init is slow to reap, a killed owner lingers as one for minutes.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// The state follows the parenthesised command name.
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// stopDir stops the server of the cluster in dir, if one runs.
func stopDir(ctx context.Context, dir string) error {
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err != nil {
		return nil //nolint:nilerr // no pid file: no server to stop
	}
	binDir, err := FindBinaries(ctx, defaultCacheDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	c := &Cluster{dir: dir, binDir: binDir}
	if os.Geteuid() == 0 {
		if c.runAs, err = serverUser(); err != nil {
			return err
		}
	}
	out, err := c.command(ctx, "pg_ctl", "stop", "-D", data, "-m", "immediate", "-w", "-t", "30").CombinedOutput()
	if err != nil && !strings.Contains(string(out), "No server running") && !strings.Contains(string(out), "is not running") {
		return fmt.Errorf("pgcluster: stopping orphan %s: %w: %s", dir, err, tail(out))
	}
	return nil
}

// ErrInUse is returned by TakeOver when a live process owns the directory.
var ErrInUse = errors.New("pgcluster: the cluster is in use by another process")

// TakeOver makes the current process the owner of the long-lived cluster
// in dir (e.g. `labelbase dev`'s). If a previous owner died without
// stopping its server, the server is stopped first so Start can run it
// again; if the owner still runs, it returns ErrInUse with its pid.
func TakeOver(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if b, err := os.ReadFile(filepath.Join(dir, ownerFile)); err == nil {
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 && pid != os.Getpid() {
			if alive(pid) {
				return fmt.Errorf("%w (pid %d)", ErrInUse, pid)
			}
			if err := stopDir(ctx, filepath.Join(dir, "postgres")); err != nil {
				return err
			}
		}
	}
	return ClaimDir(dir)
}

// Release gives up ownership taken with TakeOver.
func Release(dir string) {
	_ = os.Remove(filepath.Join(dir, ownerFile))
}
