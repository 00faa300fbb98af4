package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrk drives the side-by-side's phases with wrk (Debian's package wrk), the
// client issue 31's first figures came from, instead of the harness's Go
// client (-client wrk). Both servers share two cores with the client and
// PostgreSQL, so the client's CPU per request weighs on both ratios: the Go
// client spends about as much per request as the gateway's whole process,
// wrk (C and LuaJIT) a fraction of it. The request is the Go client's, header
// for header (target.headers), written into a Lua script per side.
type wrk struct {
	bin, dir string
}

// errNoWrk is the refusal of -client wrk without wrk installed.
var errNoWrk = errors.New("bench: -client wrk needs wrk on the PATH (sudo apt-get install wrk)")

// newWrk finds wrk; scripts go to dir.
func newWrk(dir string) (*wrk, error) {
	bin, err := exec.LookPath("wrk")
	if err != nil {
		return nil, errNoWrk
	}
	return &wrk{bin: bin, dir: dir}, nil
}

// phaseRun is what one phase of one side measured: the Go client's
// latencies, or wrk's count and percentiles.
type phaseRun struct {
	took time.Duration
	lat  []time.Duration  // the Go client's (goSide)
	n    int              // wrk's requests (wrkSide)
	pct  [3]time.Duration // wrk's p50, p95, p99
}

// wrkLine prefixes the one line the script's done hook prints.
const wrkLine = "labelbase-wrk"

// script writes the Lua script that sends s to t (with Accept-Encoding:
// gzip when gzip) into w's directory, once per side of a pair, and
// returns its path.
func (w *wrk) script(t target, s *scenario, gzip bool) (string, error) {
	h := t.headers(s)
	if gzip {
		// wrk does not inflate; it counts the compressed bytes.
		h = append(h, [2]string{"Accept-Encoding", "gzip"})
	}
	f, err := os.CreateTemp(w.dir, "wrk-*.lua")
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(wrkScript(s.method, s.body, h)); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// phase runs script against url for o.Phase (whole seconds, at least
// one: wrk counts no finer) with o.Workers connections on two threads.
func (w *wrk) phase(ctx context.Context, o Options, url, script string) (phaseRun, error) {
	secs := max(1, int(math.Ceil(o.Phase.Seconds())))
	threads := min(2, o.Workers)
	cmd := exec.CommandContext(ctx, w.bin, "-t", strconv.Itoa(threads), "-c", strconv.Itoa(o.Workers),
		"-d", strconv.Itoa(secs)+"s", "--timeout", "10s", "-s", script, url)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return phaseRun{}, fmt.Errorf("wrk: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return parseWrk(out)
}

// parseWrk reads the done hook's line: requests, duration (µs), p50, p95,
// p99 (µs) and errors of any kind (connect, read, write, timeout, and
// statuses outside 2xx and 3xx), which fail the phase.
func parseWrk(out []byte) (phaseRun, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 7 || f[0] != wrkLine {
			continue
		}
		var v [6]int64
		for i := range v {
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return phaseRun{}, fmt.Errorf("wrk: bad summary %q", sc.Text())
			}
			v[i] = n
		}
		if v[5] > 0 {
			return phaseRun{}, fmt.Errorf("wrk: %d of %d requests failed or got an unexpected status", v[5], v[0])
		}
		if v[0] == 0 {
			return phaseRun{}, errors.New("wrk: no request completed")
		}
		us := func(n int64) time.Duration { return time.Duration(n) * time.Microsecond }
		return phaseRun{took: us(v[1]), n: int(v[0]), pct: [3]time.Duration{us(v[2]), us(v[3]), us(v[4])}}, nil
	}
	return phaseRun{}, fmt.Errorf("wrk: no summary in its output:\n%s", out)
}

// wrkScript is the Lua script that makes wrk send method, body and
// headers, and print the summary parseWrk reads.
func wrkScript(method, body string, headers [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\n", luaString(method))
	for _, h := range headers {
		fmt.Fprintf(&b, "wrk.headers[ %s ] = %s\n", luaString(h[0]), luaString(h[1])) // spaced: t[[…]] would be a call
	}
	if body != "" {
		fmt.Fprintf(&b, "wrk.body = %s\n", luaString(body))
	}
	fmt.Fprintf(&b, `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("%s %%d %%d %%d %%d %%d %%d\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(95), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout))
end
`, wrkLine)
	return b.String()
}

// luaString is s as a Lua long string: [=[…]=] with as many = as it takes
// for the closing bracket not to occur in s, so nothing in s is escaped.
// Lua drops a newline right after the opening bracket, so one is added.
func luaString(s string) string {
	eq := ""
	for strings.Contains(s, "]"+eq+"]") {
		eq += "="
	}
	return "[" + eq + "[\n" + s + "]" + eq + "]"
}

// wrkSide sums a side's wrk phases: its requests over its time, and each
// percentile as the mean of the phases' (wrk keeps no latencies to merge).
func wrkSide(runs []phaseRun) Side {
	var s Side
	var took time.Duration
	var pct [3]time.Duration
	for _, r := range runs {
		s.Ops += r.n
		took += r.took
		for i := range pct {
			pct[i] += r.pct[i]
		}
	}
	if took > 0 {
		s.RPS = float64(s.Ops) / took.Seconds()
	}
	if n := time.Duration(len(runs)); n > 0 {
		s.P50, s.P95, s.P99 = pct[0]/n, pct[1]/n, pct[2]/n
	}
	return s
}
