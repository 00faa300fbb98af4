package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/logtest"
)

// noSettings clears every setting a command could read, so a test sees
// what a fresh shell next to (or away from) a dev sees.
func noSettings(t *testing.T, dataDir string) {
	t.Helper()
	for _, k := range []string{"DATABASE_URL", "DATABASE_URL_FILE", "JWT_SECRET", "JWT_SECRET_FILE", "LISTEN_ADDR",
		"SITE_URL", "LOG_LEVEL", "LOG_FORMAT", "CRAWL_DISABLED"} {
		t.Setenv(k, "")
	}
	t.Setenv("LABELBASE_DATA_DIR", dataDir)
}

// cli runs the command line as a user would, in this process.
func cli(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// Help for every command, in every spelling, needs no database, no setting
// and no data directory, and exits 0.
func TestHelpNeedsNothing(t *testing.T) {
	dir := t.TempDir()
	noSettings(t, filepath.Join(dir, "nothing-here"))
	t.Chdir(dir)
	cmds := usageEntries()
	for _, want := range []string{"dev", "serve", "migrate", "invite", "user", "keys", "demo", "crawl", "scale", "health", "version"} {
		if len(cmds[want]) == 0 {
			t.Errorf("the usage text has no entry for %s", want)
		}
	}
	var calls [][]string
	for cmd := range cmds {
		calls = append(calls, []string{cmd, "--help"}, []string{cmd, "-h"}, []string{"help", cmd})
	}
	calls = append(calls, []string{"invite", "create", "--help"}, []string{"user", "ban", "ada@example.com", "-h"},
		[]string{"crawl", "--once", "--help"}, []string{"crawl", "--history", "-h"}, []string{"keys", "rotate", "--help"},
		[]string{"migrate", "up", "--help"})
	for _, args := range calls {
		out, errOut, err := cli(args...)
		cmd := args[0]
		if cmd == "help" {
			cmd = args[1]
		}
		if err != nil || !strings.Contains(out, "labelbase "+cmd) || errOut != "" {
			t.Errorf("labelbase %s: err %v, stdout %q, stderr %q", strings.Join(args, " "), err, out, errOut)
		}
	}
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		if out, _, err := cli(args...); err != nil || out != usage {
			t.Errorf("labelbase %s: %v, %q", args, err, out)
		}
	}
	var ue usageError
	if _, _, err := cli("help", "frobnicate"); !errors.As(err, &ue) {
		t.Errorf("help for an unknown command: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("help left files behind: %v", entries)
	}
}

// With no settings and no dev, a command says where it looked; a state
// file left by a dev that was killed is not taken for a running dev.
func TestNoDevNoSettings(t *testing.T) {
	dir := t.TempDir()
	noSettings(t, dir)
	_, _, err := cli("invite", "list")
	if err == nil || !strings.Contains(err.Error(), "DATABASE_URL is required") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("invite list with nothing to talk to: %v", err)
	}
	// A dead process's pid, in a state file that points at a database.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	stale := devState{PID: cmd.Process.Pid, DatabaseURL: "postgres://127.0.0.1:1/stale", JWTSecret: strings.Repeat("s", 40), URL: "http://127.0.0.1:1"}
	if err := stale.write(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := findDev(); !errors.Is(err, errNoDev) || !strings.Contains(err.Error(), "has stopped") {
		t.Fatalf("findDev with a stale state file: %v", err)
	}
	if _, _, err := cli("crawl", "--history"); err == nil || !strings.Contains(err.Error(), "DATABASE_URL is required") {
		t.Fatalf("crawl --history next to a dead dev: %v", err)
	}
	// A live pid with an unreadable file is no dev either.
	if err := os.WriteFile(filepath.Join(dir, devStateFile), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := findDev(); !errors.Is(err, errNoDev) {
		t.Fatalf("findDev with a broken state file: %v", err)
	}
}

// startDev runs `labelbase dev` in this process with its data in a fresh
// directory, logging to a buffer at the level lv holds, and returns its URL
// once the banner is out. The dev stops when the test ends.
func startDev(t *testing.T, lv *slog.LevelVar) (url string, dataDir string, console *logtest.Buffer, banner *logtest.Buffer) {
	t.Helper()
	// PostgreSQL runs as another user when the tests run as root: the
	// directory must be enterable for it, which t.TempDir's is not.
	dataDir, err := os.MkdirTemp("", "labelbase-devtest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	noSettings(t, dataDir)
	t.Setenv("LISTEN_ADDR", "127.0.0.1:0")
	t.Setenv("CRAWL_DISABLED", "true")
	console, banner = &logtest.Buffer{}, &logtest.Buffer{}
	log := newLogger(console, "info", "text")
	log = slog.New(levelHandler{log.Handler(), lv})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDev(ctx, nil, banner, log) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("dev: %v", err)
		}
		os.RemoveAll(dataDir)
	})
	re := regexp.MustCompile(`Labelbase is running: (\S+)`)
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(banner.String()); m != nil {
			// The address is the dev's, not the test's.
			t.Setenv("LISTEN_ADDR", "")
			t.Setenv("CRAWL_DISABLED", "")
			return m[1], dataDir, console, banner
		}
		select {
		case err := <-done:
			t.Fatalf("dev stopped: %v\n%s", err, console.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("dev did not start:\n%s", console.String())
	return
}

// levelHandler lets a test change the console's level while dev runs.
type levelHandler struct {
	slog.Handler
	lv *slog.LevelVar
}

func (h levelHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.lv.Level() }
func (h levelHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return levelHandler{h.Handler.WithAttrs(as), h.lv}
}
func (h levelHandler) WithGroup(n string) slog.Handler {
	return levelHandler{h.Handler.WithGroup(n), h.lv}
}

// requestLine is an access-log line in the text format.
var requestLine = regexp.MustCompile(`(?m)^time=\S+ level=\w+ msg=request `)

// Next to a running dev, with no settings at all, every command talks to
// it: health to its address, crawl, invite, user and keys to its database
// and secret; none of them prints a request log line. The dev's console
// shows no per-request line at info, and does at debug.
func TestCommandsFindRunningDev(t *testing.T) {
	var lv slog.LevelVar
	devURL, dataDir, console, _ := startDev(t, &lv)
	t.Chdir(t.TempDir()) // LABELBASE_DATA_DIR, not the working directory, says where the dev is

	var st devState
	b, err := os.ReadFile(filepath.Join(dataDir, devStateFile))
	if err != nil || json.Unmarshal(b, &st) != nil || st.URL != devURL || st.PID != os.Getpid() {
		t.Fatalf("dev state %s: %+v, %v", b, st, err)
	}
	if fi, err := os.Stat(filepath.Join(dataDir, devStateFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("dev state file mode: %v, %v", fi, err)
	}

	check := func(args []string, want *regexp.Regexp) string {
		t.Helper()
		out, errOut, err := cli(args...)
		if err != nil || !want.MatchString(out) {
			t.Fatalf("labelbase %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
		}
		if requestLine.MatchString(out + errOut) {
			t.Errorf("labelbase %s printed a request log line:\n%s%s", strings.Join(args, " "), out, errOut)
		}
		return out
	}
	check([]string{"health"}, regexp.MustCompile(`^ok \(`+regexp.QuoteMeta(devURL)+`/livez\)\n$`))
	check([]string{"health", "--ready"}, regexp.MustCompile(`^ok \(`+regexp.QuoteMeta(devURL)+`/readyz\)\n$`))
	// The demo labels are never crawled and nothing is queued: a pass
	// that needs no network, recorded in the dev's database.
	check([]string{"crawl", "--once"}, regexp.MustCompile(`(?m)^run \d+$`))
	check([]string{"crawl", "--history"}, regexp.MustCompile(`\S`))
	check([]string{"migrate", "version"}, regexp.MustCompile(`^version (\d+) of (\d+) \(clean\)`))
	code := strings.TrimSpace(check([]string{"invite", "create", "--note", "found the dev"}, regexp.MustCompile(`^[2-9a-z]{4}(-[2-9a-z]{4}){5}\n$`)))
	check([]string{"invite", "list"}, regexp.MustCompile(regexp.QuoteMeta(code)+`.*found the dev`))
	check([]string{"user", "create", "ada@example.com", "--password", "password1"}, regexp.MustCompile(`^created ada@example.com`))
	check([]string{"user", "list"}, regexp.MustCompile(`ada@example.com`))
	keys := check([]string{"keys"}, regexp.MustCompile(`ANON_KEY=ey`))

	// The keys the CLI derived are the ones the dev accepts.
	anon := regexp.MustCompile(`ANON_KEY=(\S+)`).FindStringSubmatch(keys)[1]
	if s := get(t, devURL+"/auth/v1/settings", anon); s != http.StatusOK {
		t.Errorf("the dev refused the anon key the CLI printed: %d", s)
	}
	// Settings win over the dev: DATABASE_URL names another server.
	t.Setenv("DATABASE_URL", "postgres://127.0.0.1:1/elsewhere")
	if _, _, err := cli("invite", "list"); err == nil {
		t.Error("invite list used the dev although DATABASE_URL was set")
	}
	t.Setenv("DATABASE_URL", "")

	// The dev's console: no line per request at info...
	for range 3 {
		get(t, devURL+"/livez", "")
		get(t, devURL+"/auth/v1/settings", anon)
	}
	if requestLine.MatchString(console.String()) {
		t.Errorf("dev logged requests at info:\n%s", console.String())
	}
	// ...and one per request at debug (LOG_LEVEL=debug).
	lv.Set(slog.LevelDebug)
	get(t, devURL+"/livez?probe=debug", "")
	deadline := time.Now().Add(30 * time.Second) // the access log is written off the request's goroutine
	for !strings.Contains(console.String(), "msg=request") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !regexp.MustCompile(`level=DEBUG msg=request .*path=/livez status=200`).MatchString(console.String()) {
		t.Errorf("dev at debug logged no request line:\n%s", console.String())
	}
}

func get(t *testing.T, url, apikey string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if apikey != "" {
		req.Header.Set("apikey", apikey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// The banner comes back once the log has scrolled a screen's worth, and
// not before.
func TestDevConsoleRepeatsTheBanner(t *testing.T) {
	t.Parallel()
	var out, logs bytes.Buffer
	c := newDevConsole(&out, slog.New(slog.NewTextHandler(&logs, nil)))
	c.log.Info("before the banner") // not counted: nothing to repeat yet
	c.banner(&fakeAddr{}, "abcd-efgh", false)
	first := out.String()
	if !strings.Contains(first, "abcd-efgh") || !strings.Contains(first, "invite create") {
		t.Fatalf("banner: %q", first)
	}
	l := c.log.With("component", "test") // derived loggers count too
	for range bannerEvery - 1 {
		l.Info("line")
	}
	if out.String() != first {
		t.Fatalf("the banner came back after %d lines", bannerEvery-1)
	}
	c.log.Debug("not written, not counted")
	l.Info("one more")
	if got := strings.Count(out.String(), "abcd-efgh"); got != 2 {
		t.Fatalf("after %d lines the banner was printed %d times:\n%s", bannerEvery, got, out.String())
	}
	if n := strings.Count(logs.String(), "\n"); n != bannerEvery+1 {
		t.Errorf("%d log lines written, want %d", n, bannerEvery+1)
	}
}

type fakeAddr struct{}

func (fakeAddr) Network() string { return "tcp" }
func (fakeAddr) String() string  { return "127.0.0.1:8099" }

func TestSelfCommand(t *testing.T) {
	args := os.Args
	t.Cleanup(func() { os.Args = args })
	for arg0, want := range map[string]string{
		"./bin/labelbase":                     "./bin/labelbase",
		"/usr/local/bin/labelbase":            "/usr/local/bin/labelbase",
		"/tmp/go-build123/b001/exe/labelbase": "go run ./cmd/labelbase",
	} {
		os.Args = slices.Concat([]string{arg0}, args[1:])
		if got := selfCommand(); got != want {
			t.Errorf("selfCommand() for %s = %q, want %q", arg0, got, want)
		}
	}
}
