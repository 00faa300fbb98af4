package bench

import (
	"compress/gzip"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// One short round of every scenario keeps the harness from rotting: each
// request must get its expected status through the gateway, and the floor
// must run the captured statement and get its one row.
func TestHarnessRunsEveryScenario(t *testing.T) {
	db := pgtest.NewEmpty(t)
	o := Defaults()
	o.DatabaseURL = db.URL
	o.Dataset = Dataset{Labels: 20, ReleasesPerLabel: 5, Follows: 10}
	o.Workers, o.PoolSize, o.Rounds, o.Phase, o.MaxOps = 2, 2, 1, 50*time.Millisecond, 50
	o.Out, o.Log = io.Discard, slog.New(slog.DiscardHandler)
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(scenarios(&fixture{})) {
		t.Fatalf("%d results, want one per scenario", len(res))
	}
	for _, r := range res {
		if r.Gateway.Ops == 0 || r.Floor.Ops == 0 || r.HTTPFloor.Ops == 0 || r.SetupFloor.Ops == 0 || r.FairFloor.Ops == 0 || r.Ratio() <= 0 {
			t.Errorf("%s: gateway %d ops, floor %d, HTTP floor %d, setup floor %d, fair floor %d, ratio %.2f", r.Name,
				r.Gateway.Ops, r.Floor.Ops, r.HTTPFloor.Ops, r.SetupFloor.Ops, r.FairFloor.Ops, r.Ratio())
		}
	}
}

// The client asks for gzip only with -gzip: without it every side answers
// the same uncompressed bytes (wrk's request); with it the gateway's
// compressed answer reaches the caller inflated.
func TestClientAsksForGzipOnlyWhenTold(t *testing.T) {
	const body = `[{"id":1}]`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "gzip" {
			_, _ = io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, body)
		_ = zw.Close()
	}))
	defer srv.Close()
	for _, gz := range []bool{false, true} {
		res, err := newClient(1, gz).Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		// The transport removes Content-Encoding once it has inflated.
		if err != nil || string(got) != body || res.Uncompressed != gz {
			t.Errorf("gzip %v: body %q, inflated by the client %v, err %v", gz, got, res.Uncompressed, err)
		}
	}
}

// A child that exits keeps counting: its CPU moves from the live children
// to the parent's reaped total, and the meter's sum does not drop. This
// process stands in for the postmaster.
func TestCPUMeterCountsExitedChildren(t *testing.T) {
	m := &cpuMeter{postmaster: os.Getpid()}
	before := m.server()
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	child := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if got := m.server() - before; child < 20*time.Millisecond || got < child*8/10 {
		t.Fatalf("the meter grew by %s while a child used %s and exited", got, child)
	}
}
