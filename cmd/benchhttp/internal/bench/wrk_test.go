package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A Lua long string needs no escapes: its brackets get as many = as it
// takes for the closing one not to occur in the value.
func TestLuaString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":"b"}`:      "[[\n{\"a\":\"b\"}]]",
		"x]]y":           "[=[\nx]]y]=]",
		"x]]y]=]z":       "[==[\nx]]y]=]z]==]",
		"line\nbreak\\n": "[[\nline\nbreak\\n]]",
	} {
		if got := luaString(in); got != want {
			t.Errorf("luaString(%q) = %q, want %q", in, got, want)
		}
	}
}

// The summary line is read; failed requests, none at all, or no line fail
// the phase.
func TestParseWrk(t *testing.T) {
	t.Parallel()
	run, err := parseWrk([]byte("Running 1s test @ http://x\n" + wrkLine + " 1200 1003000 800 2500 4100 0\n"))
	if err != nil || run.n != 1200 || run.took != 1003*time.Millisecond ||
		run.pct != [3]time.Duration{800 * time.Microsecond, 2500 * time.Microsecond, 4100 * time.Microsecond} {
		t.Fatalf("parsed %+v, %v", run, err)
	}
	for _, out := range []string{
		wrkLine + " 1200 1003000 800 2500 4100 3\n",
		wrkLine + " 0 1003000 0 0 0 0\n",
		wrkLine + " 12 x 1 2 3 0\n",
		"Running 1s test @ http://x\n",
	} {
		if _, err := parseWrk([]byte(out)); err == nil {
			t.Errorf("%q: no error", out)
		}
	}
}

// requireWrk is wrk's path; without it the test skips, except in CI, where
// the test task installs it (deps:wrk) and its absence is a failure.
func requireWrk(t *testing.T) *wrk {
	t.Helper()
	w, err := newWrk(t.TempDir())
	if err != nil {
		if _, lerr := exec.LookPath("wrk"); lerr != nil && os.Getenv("CI") != "true" {
			t.Skip(err.Error())
		}
		t.Fatal(err)
	}
	return w
}

// wrk sends the Go client's request, header for header and byte for byte
// (a body with brackets and quotes included), and a status outside 2xx
// fails its phase.
func TestWrkSendsTheScenariosRequest(t *testing.T) {
	t.Parallel()
	w := requireWrk(t)
	s := &scenario{name: "insert", member: true, method: "POST", path: "/rest/v1/things?select=id",
		body: `{"note":"]] and ]=] \"quoted\" ü"}`, prefer: "return=representation", status: 201}
	var mu sync.Mutex
	var seen []string
	status := http.StatusCreated
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got := strings.Join([]string{r.Method, r.URL.String(), r.Header.Get("apikey"), r.Header.Get("Authorization"),
			r.Header.Get("Content-Type"), r.Header.Get("Prefer"), r.Header.Get("Accept-Encoding"), string(b)}, "|")
		mu.Lock()
		seen = append(seen, got)
		st := status
		mu.Unlock()
		rw.WriteHeader(st)
	}))
	defer srv.Close()
	tg := target{base: srv.URL, client: newClient(2, false), apikey: "anon-key", bearer: "member-token"}
	o := Options{Workers: 2, Phase: time.Second}
	script, err := w.script(tg, s, false)
	if err != nil {
		t.Fatal(err)
	}
	run, err := w.phase(context.Background(), o, tg.base+s.path, script)
	if err != nil {
		t.Fatal(err)
	}
	want := "POST|/rest/v1/things?select=id|anon-key|Bearer member-token|application/json|return=representation||" + s.body
	mu.Lock()
	n := len(seen)
	for i, got := range seen {
		if got != want {
			t.Fatalf("request %d: %q, want %q", i, got, want)
		}
	}
	mu.Unlock()
	if run.n == 0 || run.n > n || run.took < time.Second/2 || run.pct[0] <= 0 || run.pct[2] < run.pct[0] {
		t.Fatalf("summary %+v for %d requests served", run, n)
	}

	mu.Lock()
	status = http.StatusInternalServerError
	mu.Unlock()
	if _, err := w.phase(context.Background(), o, tg.base+s.path, script); err == nil || !strings.Contains(err.Error(), "unexpected status") {
		t.Fatalf("500s: %v", err)
	}
}
