package scale

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestGenerateGrowAndReport runs the benchmark end to end on a tiny dataset:
// generation, growth to twice the releases (with listens for the new ones),
// a second run that changes nothing, and the report, which must produce a
// complete row per call with plans captured. At this size the planner may
// rightly scan releases sequentially, so that flag is not asserted here
// (sql/indexes_test.go guards index use); timings are printed, never
// asserted.
func TestGenerateGrowAndReport(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	small := Size{Labels: 40, ReleasesPerLabel: 5, Users: 6, FollowsPerUser: 4, ListenEvery: 2, HiddenEvery: 2}
	count := func(sql string) int64 {
		t.Helper()
		var n int64
		if err := db.Pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	const releases = `SELECT count(*) FROM public.releases r JOIN public.labels l ON l.id = r.label_id
		WHERE l.label_url LIKE 'https://scale-label-%'`
	const listens = `SELECT count(*) FROM public.user_listened_releases`
	var out bytes.Buffer
	if err := Generate(ctx, db.Pool, small, &out); err != nil {
		t.Fatal(err)
	}
	if got := count(releases); got != 200 {
		t.Fatalf("releases = %d; want 200", got)
	}
	firstListens := count(listens)
	if firstListens == 0 {
		t.Fatal("no listens generated")
	}
	if got := count(`SELECT count(*) FROM private.hidden_labels`); got != 20 {
		t.Fatalf("hidden labels = %d; want 20 (one in 2 of 40)", got)
	}
	if got := count(`SELECT count(*) FROM public.user_follow_labels f JOIN private.hidden_labels h USING (label_id)`); got == 0 {
		t.Fatal("no follow of a hidden label: the dataset should hide labels members follow")
	}

	grown := small
	grown.ReleasesPerLabel = 10
	out.Reset()
	if err := Generate(ctx, db.Pool, grown, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "adding 5 releases per label") {
		t.Errorf("growth output = %q", out.String())
	}
	if got := count(releases); got != 400 {
		t.Fatalf("releases after growth = %d; want 400", got)
	}
	if got := count(`SELECT count(DISTINCT release_url) FROM public.releases`); got != 400 {
		t.Fatalf("distinct release urls = %d; want 400", got)
	}
	if got := count(listens); got <= firstListens {
		t.Fatalf("listens after growth = %d; want more than %d", got, firstListens)
	}

	out.Reset()
	if err := Generate(ctx, db.Pool, grown, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "skipping generation") || count(releases) != 400 {
		t.Fatalf("a second run changed the dataset: %q", out.String())
	}

	out.Reset()
	results, err := Report(ctx, db.URL, 3, "", &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if len(results) != len(calls) {
		t.Fatalf("%d results for %d calls", len(results), len(calls))
	}
	for _, r := range results {
		if r.Plans == 0 || r.P50 <= 0 || r.P95 < r.P50 || r.Explain == "" {
			t.Errorf("%s: incomplete result %+v", r.Name, r)
		}
	}
	if _, err := Report(ctx, db.URL, 0, "", &out); err == nil {
		t.Error("Report with 0 calls succeeded")
	}
}

func TestPercentile(t *testing.T) {
	ms := func(ns ...int) []time.Duration {
		var ds []time.Duration
		for _, n := range ns {
			ds = append(ds, time.Duration(n)*time.Millisecond)
		}
		return ds
	}
	for _, c := range []struct {
		in     []time.Duration
		p      int
		wantMs int
	}{
		{ms(5), 50, 5},
		{ms(5), 95, 5},
		{ms(4, 1, 3, 2), 50, 2},
		{ms(4, 1, 3, 2), 95, 4},
		{ms(10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11), 95, 19},
	} {
		if got := percentile(c.in, c.p); got != time.Duration(c.wantMs)*time.Millisecond {
			t.Errorf("percentile(%v, %d) = %v; want %dms", c.in, c.p, got, c.wantMs)
		}
	}
}
