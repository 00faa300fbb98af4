package pgcluster_test

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgcluster"
)

// openDir makes a temporary directory every user can enter, because a
// root test process hands the cluster to an unprivileged server user.
func openDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	// t.TempDir's parent is private to the creating user.
	for p := filepath.Dir(dir); p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// startReuseStop is the life cycle every caller relies on: a first start
// initialises, data survives a stop, the second start reuses the cluster
// (same password, same data) and a stop really stops it.
func startReuseStop(t *testing.T, dir string) {
	ctx := context.Background()
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Fast: true})
	if err != nil {
		t.Fatalf("first start: %v", err)
	}
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		c.Stop()
		t.Fatalf("connect: %v", err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"); err != nil {
		t.Fatal(err)
	}
	var who string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != "postgres" {
		t.Errorf("current_user = %q, %v; want postgres", who, err)
	}
	conn.Close(ctx)
	firstURL := c.URL("postgres")
	if err := c.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if conn, err := pgx.Connect(ctx, firstURL); err == nil {
		conn.Close(ctx)
		t.Fatal("the server still accepts connections after Stop")
	}

	c2, err := pgcluster.Start(ctx, pgcluster.Options{Dir: dir, Fast: true})
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	defer func() {
		if err := c2.Stop(); err != nil {
			t.Errorf("second stop: %v", err)
		}
	}()
	conn, err = pgx.Connect(ctx, c2.URL("postgres"))
	if err != nil {
		t.Fatalf("connect after reuse: %v", err)
	}
	defer conn.Close(ctx)
	var v string
	if err := conn.QueryRow(ctx, "SELECT v FROM kept").Scan(&v); err != nil || v != "still here" {
		t.Fatalf("data after reuse = %q, %v", v, err)
	}
}

func TestStartReuseStop(t *testing.T) {
	t.Parallel()
	startReuseStop(t, filepath.Join(openDir(t), "pg"))
}

// TestWrongPasswordRefused proves the cluster is not open to anyone on the
// machine: loopback connections need the generated password.
func TestWrongPasswordRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(openDir(t), "pg"), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	u := "postgres://postgres:wrong@127.0.0.1:" + strconv.Itoa(c.Port()) + "/postgres?sslmode=disable"
	if conn, err := pgx.Connect(ctx, u); err == nil {
		conn.Close(ctx)
		t.Fatal("connected with a wrong password")
	}
}

// TestAsOtherUser runs the life cycle as the opposite kind of user from the
// test process: when the tests run as root it re-runs itself as nobody
// (a normal user); as a normal user, TestStartReuseStop already covered
// that case and root cannot be had, so it says so.
func TestAsOtherUser(t *testing.T) {
	t.Parallel()
	if os.Getenv("PGCLUSTER_CHILD_DIR") != "" {
		startReuseStop(t, os.Getenv("PGCLUSTER_CHILD_DIR"))
		return
	}
	if os.Geteuid() != 0 {
		t.Skip("running as a normal user: TestStartReuseStop covered it; the root path needs root")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no nobody user on this machine")
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	dir := openDir(t)
	// The test binary lives in a directory only root may enter; copy it.
	bin := filepath.Join(dir, "pgcluster.test")
	copyFile(t, os.Args[0], bin)
	clusterDir := filepath.Join(dir, "pg")
	if err := os.Mkdir(clusterDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(clusterDir, uid, gid); err != nil {
		t.Fatal(err)
	}
	// A parallel test forking at the moment the copy was written holds the
	// write descriptor for an instant, and exec fails with "text file
	// busy" until that child execs; try again briefly.
	var out []byte
	for try := 0; ; try++ {
		cmd := exec.Command(bin, "-test.run", "^TestAsOtherUser$", "-test.v")
		cmd.Env = append(os.Environ(), "PGCLUSTER_CHILD_DIR="+clusterDir, "HOME="+dir)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
		out, err = cmd.CombinedOutput()
		if !errors.Is(err, syscall.ETXTBSY) || try == 50 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestAsOtherUser") {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}

func TestBadBinaryDir(t *testing.T) {
	t.Setenv("PG_BIN_DIR", t.TempDir())
	_, err := pgcluster.Start(context.Background(), pgcluster.Options{Dir: filepath.Join(t.TempDir(), "pg")})
	if err == nil || !strings.Contains(err.Error(), "PG_BIN_DIR") {
		t.Fatalf("err = %v; want a PG_BIN_DIR error", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// A cluster whose owner died is stopped and removed; one whose owner lives
// is left alone.
func TestReapOrphans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	parent := openDir(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	start := func(name string, owner int) (string, *pgcluster.Cluster) {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o711); err != nil {
			t.Fatal(err)
		}
		c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "pg"), Fast: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(owner)), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir, c
	}
	orphanDir, orphan := start("lb-orphan-dead", dead.Process.Pid)
	liveDir, live := start("lb-orphan-live", os.Getpid())
	defer live.Stop()

	n, err := pgcluster.ReapOrphans(ctx, filepath.Join(parent, "lb-orphan-*"), "pg")
	if err != nil || n != 1 {
		t.Fatalf("ReapOrphans = %d, %v; want 1", n, err)
	}
	if _, err := os.Stat(orphanDir); !os.IsNotExist(err) {
		t.Errorf("the orphan's directory is still there: %v", err)
	}
	if conn, err := pgx.Connect(ctx, orphan.URL("postgres")); err == nil {
		conn.Close(ctx)
		t.Error("the orphaned server still runs")
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("a live owner's directory was removed: %v", err)
	}
	conn, err := pgx.Connect(ctx, live.URL("postgres"))
	if err != nil {
		t.Fatalf("a live owner's server was stopped: %v", err)
	}
	conn.Close(ctx)
}

// TakeOver refuses a directory a live process owns, and stops the server a
// dead owner left running so the next Start can run it again.
func TestTakeOver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(openDir(t), "dev")
	if err := pgcluster.TakeOver(ctx, dir); err != nil {
		t.Fatal(err)
	}
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "postgres"), Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	// Another process claims to own it and is alive: refused.
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(os.Getppid())), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pgcluster.TakeOver(ctx, dir); !errors.Is(err, pgcluster.ErrInUse) {
		c.Stop()
		t.Fatalf("TakeOver with a live owner = %v; want ErrInUse", err)
	}
	// The owner died without stopping the server: it is stopped.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(strconv.Itoa(dead.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pgcluster.TakeOver(ctx, dir); err != nil {
		c.Stop()
		t.Fatalf("TakeOver after a dead owner: %v", err)
	}
	if conn, err := pgx.Connect(ctx, c.URL("postgres")); err == nil {
		conn.Close(ctx)
		c.Stop()
		t.Fatal("the dead owner's server still runs")
	}
	c2, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "postgres"), Fast: true})
	if err != nil {
		t.Fatalf("restart after take-over: %v", err)
	}
	defer c2.Stop()
	pgcluster.Release(dir)
	if _, err := os.Stat(filepath.Join(dir, "owner.pid")); !os.IsNotExist(err) {
		t.Errorf("Release left the owner file: %v", err)
	}
}
