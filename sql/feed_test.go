package sqlfiles_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestGetLatestReleasesMatchesFullSort checks the feed's merge of per-label
// date orders (000008) against the plain definition, every visible release
// of the labels sorted by date (newest first, undated last) then id, on a
// catalogue built to stress the bound it derives: labels from 0 to 60
// releases, many releases sharing a date across labels, undated releases,
// pre-orders, labels with only pre-orders or only undated releases, and
// label lists with duplicates, unknown ids and NULLs. Every page of several
// sizes must equal the same slice of the full sort.
func TestGetLatestReleasesMatchesFullSort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	a := pgtest.CreateUser(t, e.db.Pool, "a@example.com", "password-a")
	superExec(t, e.db, withUsers(`
		INSERT INTO public.labels (id, label_name, label_url)
		SELECT g, 'Label ' || g, 'https://label' || g || '.bandcamp.com' FROM generate_series(1, 12) g;
		-- Label g has (g * 5) % 61 releases: 5, 10, … 60, 4, 9; dates fall on
		-- few distinct days so ties are common; one in 7 is undated, one in 11
		-- a pre-order. Label 11 has only undated releases, label 12 only
		-- pre-orders.
		INSERT INTO public.releases (label_id, title, release_url, release_date)
		SELECT g, 'R', 'https://label' || g || '.bandcamp.com/album/' || n,
		       CASE WHEN g = 11 OR n % 7 = 0 THEN NULL
		            WHEN g = 12 OR n % 11 = 0 THEN current_date + 1 + n % 5
		            ELSE current_date - (n * g) % 40 END
		  FROM generate_series(1, 12) g, generate_series(1, (g * 5) % 61) n;
		INSERT INTO public.user_follow_labels (user_id, label_id) SELECT :A, g FROM generate_series(1, 12) g;
		ANALYZE;`, a, a))

	full := func(t *testing.T, labels []int64) []int64 {
		t.Helper()
		rows, err := e.db.Pool.Query(ctx, `SELECT id FROM public.releases
			WHERE label_id = ANY ($1) AND (release_date IS NULL OR release_date <= current_date)
			ORDER BY release_date DESC NULLS LAST, id DESC`, labels)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	all := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	for _, lists := range []struct {
		name string
		// given is label_ids (nil: the follows); labels is what it means.
		given, labels []int64
	}{
		{"follows", nil, all},
		{"big labels", []int64{10, 9}, []int64{10, 9}},
		{"small labels and duplicates", []int64{1, 1, 13, 2, 11, 2}, []int64{1, 2, 11}},
		{"only undated", []int64{11}, []int64{11}},
		{"only pre-orders", []int64{12}, []int64{12}},
	} {
		t.Run(lists.name, func(t *testing.T) {
			t.Parallel()
			want := full(t, lists.labels)
			if lists.given == nil && len(want) < 250 {
				t.Fatalf("the fixture has %d visible releases for the follows; want a few hundred", len(want))
			}
			for _, size := range []int{1, 4, 9, 50} {
				for page := 1; page <= len(want)/size+2; page++ {
					got := e.ids(t, member("A", a),
						`SELECT id FROM public.get_latest_releases($1, $2, $3, $4)`, a, lists.given, size, page)
					requireIDs(t, fmt.Sprintf("page %d of %d", page, size), got, pageOf(want, page, size))
				}
			}
		})
	}
	t.Run("a NULL in label_ids is no label", func(t *testing.T) {
		t.Parallel()
		got := e.ids(t, member("A", a),
			`SELECT id FROM public.get_latest_releases($1, '{NULL,6}', 100, 1)`, a)
		requireIDs(t, "label 6", got, pageOf(full(t, []int64{6}), 1, 100))
	})
}
