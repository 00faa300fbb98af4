package pgcluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
)

// StartReplica makes a streaming replica of c in dir (pg_basebackup -R:
// standby.signal and primary_conninfo are written for it) and starts it on
// a free port, with hot_standby_feedback on so that replay does not cancel
// the reads it serves. Tests use it for replica routing and failover.
func (c *Cluster) StartReplica(ctx context.Context, dir string) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	r := &Cluster{dir: dir, binDir: c.binDir, password: c.password, runAs: c.runAs, walLevel: c.walLevel, log: c.log}
	if err := r.prepareDir(); err != nil {
		return nil, err
	}
	if err := r.writeOwned(r.passwordFile(), r.password+"\n"); err != nil {
		return nil, err
	}
	cmd := c.command(ctx, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.port), "-U", superuser,
		"-D", r.dataDir(), "-R", "-X", "stream", "--no-sync", "-c", "fast")
	cmd.Path = c.companion("pg_basebackup")
	cmd.Env = append(cmd.Env, "PGPASSWORD="+c.password)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pgcluster: pg_basebackup: %w: %s", err, tail(out))
	}
	if r.port, err = freePort(); err != nil {
		return nil, err
	}
	if err := r.appendConf("hot_standby_feedback = on\nwal_receiver_status_interval = 1s\n"); err != nil {
		return nil, err
	}
	if err := r.start(ctx, true); err != nil {
		return nil, err
	}
	return r, nil
}

// appendConf adds settings to postgresql.conf.
func (c *Cluster) appendConf(lines string) error {
	f, err := os.OpenFile(filepath.Join(c.dataDir(), "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString("\n" + lines); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	return nil
}

// Kill stops the server the way a crash would (pg_ctl's immediate mode):
// no shutdown checkpoint, clients cut off mid-statement.
func (c *Cluster) Kill() error {
	cmd := c.command(context.Background(), "pg_ctl", "stop", "-D", c.dataDir(), "-m", "immediate", "-w", "-t", "60")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("pgcluster: kill: %w: %s", err, tail(out))
	}
	return nil
}

// StartAgain starts a stopped server on its old port.
func (c *Cluster) StartAgain(ctx context.Context) error { return c.start(ctx, true) }

// Dir is the directory holding data/ and the server log.
func (c *Cluster) Dir() string { return c.dir }

// companion finds a client program shipped with the server binaries: in
// the binaries' directory, or beside the file pg_ctl links to (a PATH
// directory may hold links to initdb, pg_ctl and postgres only).
func (c *Cluster) companion(name string) string {
	if p := filepath.Join(c.binDir, name); fileExists(p) {
		return p
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(c.binDir, "pg_ctl")); err == nil {
		if p := filepath.Join(filepath.Dir(real), name); fileExists(p) {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return filepath.Join(c.binDir, name)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
