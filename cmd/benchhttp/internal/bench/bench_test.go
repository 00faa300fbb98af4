package bench

import (
	"context"
	"io"
	"log/slog"
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
