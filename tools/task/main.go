// Command task is what `go tool task` runs: it compiles go-task, the task
// runner pinned in tools/go.mod, the first time, saying what it does while
// it does it, and from then on runs the compiled go-task at once.
//
// Why not name go-task as the tool directly: `go tool` compiles a tool with
// no output at all, and on a fresh machine go-task and the standard library
// it needs take around a minute of compiling on two cores, during which a
// newcomer's first command printed nothing. This program imports a handful
// of standard packages (seconds to compile), and compiles go-task with `go
// build -v`, printing a line at least every few seconds.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// taskPackage is go-task's command; its version is the one tools/go.mod
// requires (tools.go keeps that requirement).
const taskPackage = "github.com/go-task/task/v3/cmd/task"

// tick is the longest the console stays quiet while go-task compiles.
const tick = 4 * time.Second

func main() {
	bin, err := taskBinary()
	if err != nil {
		fmt.Fprintf(os.Stderr, "go tool task: %v\n", err)
		os.Exit(1)
	}
	os.Exit(run(bin, os.Args[1:]))
}

// taskBinary returns the compiled go-task for the pinned version and this
// Go toolchain, compiling it first when it is not there yet. It lives in the
// user's cache directory, shared by every checkout at the same version.
func taskBinary() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "github.com/go-task/task/v3").Output()
	if err != nil {
		return "", fmt.Errorf("cannot find the pinned go-task version (run it from the repository): %w", err)
	}
	version := strings.TrimSpace(string(out))
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	name := "task"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, "labelbase", "go-task",
		fmt.Sprintf("%s-%s-%s-%s", version, runtime.Version(), runtime.GOOS, runtime.GOARCH), name)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	return bin, compile(bin, version)
}

// compile builds go-task into bin (through a temporary file, so that an
// interrupted build leaves nothing that looks finished).
func compile(bin, version string) error {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return err
	}
	tmp := bin + ".tmp"
	say("compiling go-task %s, the task runner (first run only: about a minute on two cores with an empty Go cache)", version)
	start := time.Now()
	cmd := exec.Command("go", "build", "-v", "-o", tmp, taskPackage)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var (
		mu     sync.Mutex
		lines  []string
		latest string
	)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			latest = sc.Text()
			mu.Unlock()
		}
	}()
	t := time.NewTicker(tick)
	defer t.Stop()
	done := make(chan error, 1)
	go func() {
		<-read
		done <- cmd.Wait()
	}()
	for {
		select {
		case <-t.C:
			mu.Lock()
			say("compiling go-task: %ds, %d packages so far; latest: %s", int(time.Since(start).Seconds()), len(lines), latest)
			mu.Unlock()
		case err := <-done:
			if err != nil {
				os.Remove(tmp)
				return fmt.Errorf("compiling go-task failed: %w\n%s", err, strings.Join(lines, "\n"))
			}
			if err := os.Rename(tmp, bin); err != nil {
				return err
			}
			say("go-task is ready (%ds); later runs start at once", int(time.Since(start).Seconds()))
			return nil
		}
	}
}

func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "go tool task: "+format+"\n", args...)
}
