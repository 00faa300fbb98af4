package sqlfiles_test

import (
	"context"
	"testing"
)

// The unfiltered count_unfollowed_labels reads a kept label count
// (migration 20261127205000): after every kind of label write it must equal
// counting the labels one by one, and a rolled-back write must not move it.
func TestUnfollowedCountKeptByTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogue(t)
	check := func(step string) {
		t.Helper()
		for _, who := range []struct {
			c  caller
			id string
		}{{c.a, c.aID}, {c.b, c.bID}} {
			var want int64
			if err := c.db.Pool.QueryRow(ctx, `SELECT count(*) FROM public.labels l
				WHERE NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = l.id)
				  AND NOT EXISTS (SELECT 1 FROM public.user_follow_labels f WHERE f.label_id = l.id AND f.user_id = $1)`,
				who.id).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if got := c.countLabels(t, "count_unfollowed_labels", who.c, who.id, labelFilters{}); got != want {
				t.Errorf("%s: count_unfollowed_labels = %d, counted %d", step, got, want)
			}
			// A blank filter is no filter, on both paths.
			if got := c.countLabels(t, "count_unfollowed_labels", who.c, who.id, labelFilters{letter: " ", tag: " ", search: " "}); got != want {
				t.Errorf("%s: with blank filters = %d, counted %d", step, got, want)
			}
		}
	}
	check("fixture")
	for _, s := range []struct{ step, sql string }{
		{"insert three", `INSERT INTO public.labels (id, label_name, label_url) SELECT 100 + g, 'N' || g, 'https://n' || g || '.bandcamp.com' FROM generate_series(1, 3) g`},
		{"insert, one a duplicate", `INSERT INTO public.labels (id, label_name, label_url) VALUES (1, 'dup', 'https://dup.bandcamp.com'),
			(500, 'Fresh', 'https://fresh.bandcamp.com') ON CONFLICT (id) DO NOTHING`},
		{"hide a followed and an unfollowed label", `INSERT INTO private.hidden_labels (label_id) VALUES (2), (5)`},
		{"delete a hidden label", `DELETE FROM public.labels WHERE id = 5`},
		{"delete two", `DELETE FROM public.labels WHERE id IN (10, 11)`},
		{"delete none", `DELETE FROM public.labels WHERE id = -1`},
	} {
		if _, err := c.db.Pool.Exec(ctx, s.sql); err != nil {
			t.Fatalf("%s: %v", s.step, err)
		}
		check(s.step)
	}
	tx, err := c.db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO public.labels (id, label_name, label_url) VALUES (600, 'Gone', 'https://gone.bandcamp.com')`); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback(ctx)
	check("rolled back insert")
	if _, err := c.db.Pool.Exec(ctx, `TRUNCATE public.labels CASCADE`); err != nil {
		t.Fatal(err)
	}
	check("truncate")
}
