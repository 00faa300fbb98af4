package demo_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestGenerateShape(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	c := demo.Generate(now)
	if len(c.Labels) != demo.Labels || len(c.Releases) != demo.Releases {
		t.Fatalf("%d labels, %d releases", len(c.Labels), len(c.Releases))
	}
	var future, noGenres, old int
	twoYears := now.AddDate(-2, 0, -1)
	for _, r := range c.Releases {
		switch {
		case r.Date.After(now):
			future++
		case r.Date.Before(twoYears):
			old++
		}
		if len(r.Genres) == 0 {
			noGenres++
		}
		if r.ImageURL == "" || r.ImageURL[0] != '/' {
			t.Fatalf("cover %q must be served locally", r.ImageURL)
		}
	}
	if future == 0 || future > 20 || noGenres == 0 || noGenres > 60 || old != 0 {
		t.Errorf("future %d, without genres %d, older than two years %d", future, noGenres, old)
	}
	again := demo.Generate(now)
	if again.Releases[123].URL != c.Releases[123].URL {
		t.Error("Generate is not deterministic")
	}
}

func TestLoadOnceIntoEmptyCatalogue(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	loaded, err := demo.Load(ctx, db.Pool, time.Now())
	if err != nil || !loaded {
		t.Fatalf("first load = %v, %v", loaded, err)
	}
	var labels, releases, tagged int
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM labels), (SELECT count(*) FROM releases),
		(SELECT count(*) FROM labels WHERE cardinality(tags) >= 3)`).Scan(&labels, &releases, &tagged); err != nil {
		t.Fatal(err)
	}
	if labels != demo.Labels || releases != demo.Releases || tagged != demo.Labels {
		t.Fatalf("%d labels (%d tagged), %d releases", labels, tagged, releases)
	}
	loaded, err = demo.Load(ctx, db.Pool, time.Now())
	if err != nil || loaded {
		t.Fatalf("second load = %v, %v; want a no-op", loaded, err)
	}
}

func TestCoverIsValidDeterministicSVG(t *testing.T) {
	t.Parallel()
	a, b := demo.Cover(42), demo.Cover(42)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different covers")
	}
	if bytes.Equal(a, demo.Cover(43)) {
		t.Error("different seeds, same cover")
	}
	if err := xml.Unmarshal(a, new(struct{ XMLName xml.Name })); err != nil {
		t.Fatalf("not well-formed SVG: %v", err)
	}
}
