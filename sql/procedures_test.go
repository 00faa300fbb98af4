package sqlfiles_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// catalogue is a small, hand-checkable fixture for the SPEC §7 procedures.
//
//	id  name           tags              releases (days from today; future = pre-order)
//	 1  Alpha Records  techno,house      101 (-1) 102 (-10) 103 (no date) 104 (+30)
//	 2  amber sound    ambient           201 (-5) 202 (-200) 203 (0, no genres)
//	 3  Beta Beats     techno            301 (-2)
//	 4  100% Pure      house             401 (-3)
//	 5  2 Step Crew    garage            501 (-4)
//	 6  Cosmic_Tones   ambient,techno    601 (-6) 602 (0)
//	 7  Deep Cuts      house             701 (-7) 702 (+5)     url bandcamp.com/label/deepcuts
//	 8  Empty Label    -                 none
//	 9  Zeta           techno            901 (-8)
//	10  cosmicXtones   ambient           none                  (matches 'cosmic_' if _ were a wildcard)
//	11  100 Hz         techno            none                  (matches '0%' if % were a wildcard)
//	12  Future Sounds  techno            1201 (+10)            only a pre-order
//
// A follows 1 2 4 6 7 8 12 and listened to 101 102 103 201 401 701, so 1
// (its pre-order aside), 4 and 7 (likewise) are fully checked. B follows 1 3
// 9 and listened to 101 102 301 901: B's label 1 is not fully checked,
// because its undated release 103 counts as released.
type catalogue struct {
	*env
	a, b   caller
	aID    string
	bID    string
	labels map[int64][2]string // id -> name, url
}

func setupCatalogue(t *testing.T) *catalogue {
	t.Helper()
	e := newEnv(t)
	a := pgtest.CreateUser(t, e.db.Pool, "a@example.com", "password-a")
	b := pgtest.CreateUser(t, e.db.Pool, "b@example.com", "password-b")
	superExec(t, e.db, withUsers(`
		INSERT INTO public.labels (id, label_name, label_url, tags) VALUES
		  (1, 'Alpha Records', 'https://alpharecords.bandcamp.com', '{techno,house}'),
		  (2, 'amber sound', 'https://ambersound.bandcamp.com', '{ambient}'),
		  (3, 'Beta Beats', 'https://betabeats.bandcamp.com', '{techno}'),
		  (4, '100% Pure', 'https://purehundred.bandcamp.com', '{house}'),
		  (5, '2 Step Crew', 'https://twostep.bandcamp.com', '{garage}'),
		  (6, 'Cosmic_Tones', 'https://cosmictones.bandcamp.com', '{ambient,techno}'),
		  (7, 'Deep Cuts', 'https://bandcamp.com/label/deepcuts', '{house}'),
		  (8, 'Empty Label', 'https://emptylabel.bandcamp.com', '{}'),
		  (9, 'Zeta', 'https://zeta.bandcamp.com', '{techno}'),
		  (10, 'cosmicXtones', 'https://cosmicxtones.bandcamp.com', '{ambient}'),
		  (11, '100 Hz', 'https://hundredhz.bandcamp.com', '{techno}'),
		  (12, 'Future Sounds', 'https://futuresounds.bandcamp.com', '{techno}');
		INSERT INTO public.releases (id, label_id, title, artist, release_url, release_date, genres, image_url, rich)
		SELECT id, label_id, 'Title ' || id, 'Artist ' || id, 'https://x.bandcamp.com/album/r' || id,
		       current_date + days, genres, 'https://f4.bcbits.com/img/' || id || '.jpg', id % 2 = 1
		  FROM (VALUES
		    (101, 1, -1, '{techno}'::text[]), (102, 1, -10, '{house,techno}'), (103, 1, NULL, '{techno}'),
		    (104, 1, 30, '{techno}'),
		    (201, 2, -5, '{ambient}'), (202, 2, -200, '{ambient}'), (203, 2, 0, '{}'),
		    (301, 3, -2, '{techno}'), (401, 4, -3, '{house}'), (501, 5, -4, '{garage}'),
		    (601, 6, -6, '{ambient}'), (602, 6, 0, '{ambient}'),
		    (701, 7, -7, '{house}'), (702, 7, 5, '{house}'),
		    (901, 9, -8, '{techno}'), (1201, 12, 10, '{techno}')
		  ) AS r (id, label_id, days, genres);
		-- Spread the random window keys evenly so random picks vary visibly.
		UPDATE public.releases r SET random_key = k.n / 20.0
		  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM public.releases) k WHERE k.id = r.id;
		INSERT INTO public.user_follow_labels (user_id, label_id)
		SELECT :A, unnest('{1,2,4,6,7,8,12}'::bigint[]) UNION ALL SELECT :B, unnest('{1,3,9}'::bigint[]);
		INSERT INTO public.user_listened_releases (user_id, release_id)
		SELECT :A, unnest('{101,102,103,201,401,701}'::bigint[]) UNION ALL SELECT :B, unnest('{101,102,301,901}'::bigint[]);`,
		a, b))
	c := &catalogue{env: e, a: member("A", a), b: member("B", b), aID: a, bID: b, labels: map[int64][2]string{}}
	rows, _ := e.db.Pool.Query(context.Background(), "SELECT id, label_name, label_url FROM public.labels")
	var id int64
	var name, url string
	if _, err := pgx.ForEachRow(rows, []any{&id, &name, &url}, func() error {
		c.labels[id] = [2]string{name, url}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return c
}

// labelFilters are the Labels page filters; "" is passed as NULL.
type labelFilters struct{ letter, tag, search string }

func (c *catalogue) followed(t *testing.T, who caller, uid string, page, size int, f labelFilters) []int64 {
	t.Helper()
	return c.ids(t, who, `SELECT id FROM public.get_followed_labels(user_id_param => $1, page_number => $2,
		items_per_page => $3, letter_filter => $4, tag_filter => $5, search_term => $6)`,
		uid, page, size, nullable(f.letter), nullable(f.tag), nullable(f.search))
}

func (c *catalogue) unfollowed(t *testing.T, who caller, uid string, page, size int, f labelFilters) []int64 {
	t.Helper()
	return c.ids(t, who, `SELECT id FROM public.get_unfollowed_labels(user_id_param => $1, page_number => $2,
		items_per_page => $3, letter_filter => $4, tag_filter => $5, search_term => $6)`,
		uid, page, size, nullable(f.letter), nullable(f.tag), nullable(f.search))
}

func (c *catalogue) countLabels(t *testing.T, fn string, who caller, uid string, f labelFilters) int64 {
	t.Helper()
	return c.count(t, who, `SELECT public.`+fn+`(user_id_param => $1, letter_filter => $2, tag_filter => $3, search_term => $4)`,
		uid, nullable(f.letter), nullable(f.tag), nullable(f.search))
}

func TestFollowedAndUnfollowedLabels(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)

	// Lists are ordered by lower(label_name); names starting with a digit
	// sort first under both C and natural-language collations.
	tests := []struct {
		name                 string
		f                    labelFilters
		followed, unfollowed []int64
	}{
		{"no filters", labelFilters{}, []int64{4, 1, 2, 6, 7, 8, 12}, []int64{11, 5, 3, 10, 9}},
		{"letter", labelFilters{letter: "a"}, []int64{1, 2}, []int64{}},
		{"letter is case-insensitive", labelFilters{letter: "A"}, []int64{1, 2}, []int64{}},
		{"letter b", labelFilters{letter: "b"}, []int64{}, []int64{3}},
		{"hash is names not starting with a letter", labelFilters{letter: "#"}, []int64{4}, []int64{11, 5}},
		{"letter with no labels", labelFilters{letter: "q"}, []int64{}, []int64{}},
		{"blank letter is no filter", labelFilters{letter: " "}, []int64{4, 1, 2, 6, 7, 8, 12}, []int64{11, 5, 3, 10, 9}},
		{"tag", labelFilters{tag: "techno"}, []int64{1, 6, 12}, []int64{11, 3, 9}},
		{"tag house", labelFilters{tag: "house"}, []int64{4, 1, 7}, []int64{}},
		{"unknown tag", labelFilters{tag: "polka"}, []int64{}, []int64{}},
		{"letter and tag", labelFilters{letter: "a", tag: "ambient"}, []int64{2}, []int64{}},
		{"search name case-insensitively", labelFilters{search: "ALPHA"}, []int64{1}, []int64{}},
		{"search url", labelFilters{search: "bandcamp.com/LABEL"}, []int64{7}, []int64{}},
		{"search url of unfollowed", labelFilters{search: "zeta.BANDCAMP"}, []int64{}, []int64{9}},
		{"search percent is literal", labelFilters{search: "%"}, []int64{4}, []int64{}},
		{"search 0% is literal", labelFilters{search: "0%"}, []int64{4}, []int64{}},
		{"search underscore is literal", labelFilters{search: "_"}, []int64{6}, []int64{}},
		{"search cosmic_ is literal", labelFilters{search: "cosmic_"}, []int64{6}, []int64{}},
		{"search backslash is literal", labelFilters{search: `\`}, []int64{}, []int64{}},
		{"search blank is no filter", labelFilters{search: "   "}, []int64{4, 1, 2, 6, 7, 8, 12}, []int64{11, 5, 3, 10, 9}},
		{"search is trimmed", labelFilters{search: "  cosmic "}, []int64{6}, []int64{10}},
		{"all filters", labelFilters{letter: "d", tag: "house", search: "deep"}, []int64{7}, []int64{}},
		{"all filters, no match", labelFilters{letter: "d", tag: "techno", search: "deep"}, []int64{}, []int64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireIDs(t, "get_followed_labels", c.followed(t, c.a, c.aID, 1, 1000, tt.f), tt.followed)
			requireIDs(t, "get_unfollowed_labels", c.unfollowed(t, c.a, c.aID, 1, 1000, tt.f), tt.unfollowed)
			if n := c.countLabels(t, "count_followed_labels", c.a, c.aID, tt.f); n != int64(len(tt.followed)) {
				t.Fatalf("count_followed_labels = %d; want %d", n, len(tt.followed))
			}
			if n := c.countLabels(t, "count_unfollowed_labels", c.a, c.aID, tt.f); n != int64(len(tt.unfollowed)) {
				t.Fatalf("count_unfollowed_labels = %d; want %d", n, len(tt.unfollowed))
			}
		})
	}

	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		for _, f := range []labelFilters{{}, {tag: "techno"}, {letter: "#"}} {
			full := c.followed(t, c.a, c.aID, 1, 1000, f)
			fullUn := c.unfollowed(t, c.a, c.aID, 1, 1000, f)
			for _, size := range []int{1, 2, 3, 7} {
				// One page past the end must come back empty.
				for page := 1; page <= len(full)/size+2; page++ {
					requireIDs(t, fmt.Sprintf("followed %+v page %d size %d", f, page, size),
						c.followed(t, c.a, c.aID, page, size, f), pageOf(full, page, size))
				}
				for page := 1; page <= len(fullUn)/size+2; page++ {
					requireIDs(t, fmt.Sprintf("unfollowed %+v page %d size %d", f, page, size),
						c.unfollowed(t, c.a, c.aID, page, size, f), pageOf(fullUn, page, size))
				}
			}
		}
		requireIDs(t, "last partial page", c.followed(t, c.a, c.aID, 3, 3, labelFilters{}), []int64{12})
		requireIDs(t, "far page", c.followed(t, c.a, c.aID, 1<<31-1, 1000, labelFilters{}), []int64{})
	})

	t.Run("each member sees own follows", func(t *testing.T) {
		t.Parallel()
		requireIDs(t, "B followed", c.followed(t, c.b, c.bID, 1, 100, labelFilters{}), []int64{1, 3, 9})
		requireIDs(t, "B unfollowed", c.unfollowed(t, c.b, c.bID, 1, 100, labelFilters{}), []int64{11, 4, 5, 2, 6, 10, 7, 8, 12})
	})

	t.Run("service_role may act for a member", func(t *testing.T) {
		t.Parallel()
		requireIDs(t, "followed", c.followed(t, service, c.aID, 1, 100, labelFilters{}), []int64{4, 1, 2, 6, 7, 8, 12})
		requireIDs(t, "unfollowed", c.unfollowed(t, service, c.aID, 1, 100, labelFilters{}), []int64{11, 5, 3, 10, 9})
		if n := c.countLabels(t, "count_followed_labels", service, c.aID, labelFilters{}); n != 7 {
			t.Fatalf("count_followed_labels = %d; want 7", n)
		}
	})
}

func TestLabelsByListenStatus(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)

	// A's follows by name: 4 (checked), 1 (checked: its pre-order does not
	// count), 2, 6, 7 (checked), 8 (no releases), 12 (only a pre-order).
	all := []int64{4, 1, 2, 6, 7, 8, 12}
	checked := []int64{4, 1, 7}
	unchecked := []int64{2, 6, 8, 12}

	t.Run("get_all_filtered_labels_by_listen_status", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			filter string
			want   []int64
		}{{"all", all}, {"checked", checked}, {"unchecked", unchecked}} {
			requireIDs(t, tt.filter, c.ids(t, c.a,
				`SELECT id FROM public.get_all_filtered_labels_by_listen_status(user_id_param => $1, filter_type => $2)`,
				c.aID, tt.filter), tt.want)
		}
	})

	t.Run("is_fully_checked", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			who  caller
			uid  string
			want map[int64]bool
		}{
			{c.a, c.aID, map[int64]bool{4: true, 1: true, 2: false, 6: false, 7: true, 8: false, 12: false}},
			// B has not listened to the undated release 103.
			{c.b, c.bID, map[int64]bool{1: false, 3: true, 9: true}},
		} {
			got := map[int64]bool{}
			err := c.read(context.Background(), tt.who, func(tx pgx.Tx) error {
				rows, _ := tx.Query(context.Background(),
					`SELECT id, is_fully_checked FROM public.get_all_filtered_labels_by_listen_status($1, 'all')`, tt.uid)
				var id int64
				var full bool
				_, err := pgx.ForEachRow(rows, []any{&id, &full}, func() error { got[id] = full; return nil })
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("%s: is_fully_checked = %v; want %v", tt.who.name, got, tt.want)
			}
		}
		// The paged variant agrees.
		got := c.ids(t, c.a, `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 100)
			WHERE is_fully_checked`, c.aID)
		requireIDs(t, "paged fully checked", got, checked)
	})

	t.Run("filtered, searched and paged", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			filter, search string
			want           []int64
		}{
			{"all", "", all},
			{"checked", "", checked},
			{"unchecked", "", unchecked},
			{"all", "ALPHA", []int64{1}},
			{"checked", "alpha", []int64{1}},
			{"unchecked", "alpha", []int64{}},
			{"all", "bandcamp.com/label", []int64{7}},
			{"all", "%", []int64{4}},
			{"all", "_", []int64{6}},
			{"all", "  ", all},
			{"unchecked", "sound", []int64{2, 12}},
		} {
			name := tt.filter + "/" + tt.search
			full := c.ids(t, c.a, `SELECT id FROM public.get_filtered_labels_by_listen_status(
				user_id_param => $1, filter_type => $2, page_number => 1, items_per_page => 500, search_term => $3)`,
				c.aID, tt.filter, nullable(tt.search))
			requireIDs(t, name, full, tt.want)
			n := c.count(t, c.a, `SELECT public.count_filtered_labels_by_listen_status(
				user_id_param => $1, filter_type => $2, search_term => $3)`, c.aID, tt.filter, nullable(tt.search))
			if n != int64(len(tt.want)) {
				t.Fatalf("%s: count = %d; want %d", name, n, len(tt.want))
			}
			for _, size := range []int{1, 2, 3} {
				for page := 1; page <= len(full)/size+2; page++ {
					got := c.ids(t, c.a, `SELECT id FROM public.get_filtered_labels_by_listen_status($1, $2, $3, $4, $5)`,
						c.aID, tt.filter, page, size, nullable(tt.search))
					requireIDs(t, fmt.Sprintf("%s page %d size %d", name, page, size), got, pageOf(full, page, size))
				}
			}
		}
		// The search term defaults to none.
		if n := c.count(t, c.a, `SELECT public.count_filtered_labels_by_listen_status($1, 'unchecked')`, c.aID); n != 4 {
			t.Fatalf("count without search = %d; want 4", n)
		}
	})

	t.Run("service_role may act for a member", func(t *testing.T) {
		t.Parallel()
		requireIDs(t, "checked", c.ids(t, service,
			`SELECT id FROM public.get_all_filtered_labels_by_listen_status($1, 'checked')`, c.aID), checked)
	})
}

func TestGetLatestReleasesPerLabel(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)
	const q = `SELECT id FROM public.get_latest_releases_per_label(p_label_ids => $1, p_limit => $2)`

	for _, tt := range []struct {
		name   string
		labels []int64
		limit  int
		want   []int64
	}{
		// Label 1: the pre-order 104 is hidden and the undated 103 sorts last;
		// label 2: today's 203 first; 8 has no releases; 12 only a pre-order.
		{"newest first, per label, in the given label order", []int64{1, 2, 7, 8, 12}, 2, []int64{101, 102, 203, 201, 701}},
		{"undated releases sort last", []int64{1}, 3, []int64{101, 102, 103}},
		{"limit larger than the label", []int64{1}, 100, []int64{101, 102, 103}},
		{"label order is kept", []int64{7, 1}, 1, []int64{701, 101}},
		{"unfollowed labels too", []int64{3, 9}, 5, []int64{301, 901}},
		{"unknown label", []int64{999}, 5, []int64{}},
		{"no labels", []int64{}, 5, []int64{}},
		{"null labels", nil, 5, []int64{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireIDs(t, "ids", c.ids(t, c.a, q, tt.labels, tt.limit), tt.want)
		})
	}

	t.Run("returns the release columns", func(t *testing.T) {
		t.Parallel()
		var (
			labelID                   int64
			title, artist, url, image string
			dateOK, rich              bool
			genres                    []string
		)
		err := c.read(context.Background(), c.b, func(tx pgx.Tx) error {
			return tx.QueryRow(context.Background(), `SELECT label_id, title, artist, release_url,
				release_date = current_date - 10, image_url, genres, rich
				FROM public.get_latest_releases_per_label('{1}', 2) WHERE id = 102`).
				Scan(&labelID, &title, &artist, &url, &dateOK, &image, &genres, &rich)
		})
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(labelID, title, artist, url, dateOK, image, genres, rich)
		want := fmt.Sprint(int64(1), "Title 102", "Artist 102", "https://x.bandcamp.com/album/r102", true,
			"https://f4.bcbits.com/img/102.jpg", []string{"house", "techno"}, false)
		if got != want {
			t.Fatalf("row = %s; want %s", got, want)
		}
	})
}

func TestGetLatestReleases(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)

	// A's follows (1 2 4 6 7 8 12), newest first, today's two by id desc,
	// -200 days, then the undated one; pre-orders 104 702 1201 hidden.
	feedA := []int64{602, 203, 101, 401, 201, 601, 701, 102, 202, 103}
	feedB := []int64{101, 301, 901, 102, 103}
	latest := func(t *testing.T, who caller, uid string, labels []int64, size, page int) []int64 {
		t.Helper()
		return c.ids(t, who, `SELECT id FROM public.get_latest_releases(user_id => $1, label_ids => $2, page_size => $3, page => $4)`,
			uid, labels, size, page)
	}

	t.Run("null label_ids is the caller's follows", func(t *testing.T) {
		t.Parallel()
		requireIDs(t, "A", latest(t, c.a, c.aID, nil, 100, 1), feedA)
		requireIDs(t, "B", latest(t, c.b, c.bID, nil, 100, 1), feedB)
		requireIDs(t, "service for A", latest(t, service, c.aID, nil, 100, 1), feedA)
	})
	t.Run("defaults are page 1 of 9", func(t *testing.T) {
		t.Parallel()
		requireIDs(t, "A", c.ids(t, c.a, `SELECT id FROM public.get_latest_releases($1)`, c.aID), feedA[:9])
	})
	t.Run("given label_ids", func(t *testing.T) {
		t.Parallel()
		requireIDs(t, "unfollowed", latest(t, c.a, c.aID, []int64{3, 9}, 100, 1), []int64{301, 901})
		requireIDs(t, "empty", latest(t, c.a, c.aID, []int64{}, 100, 1), []int64{})
		requireIDs(t, "only a pre-order", latest(t, c.a, c.aID, []int64{12}, 100, 1), []int64{})
	})
	t.Run("pages", func(t *testing.T) {
		t.Parallel()
		for _, size := range []int{1, 3, 4, 10} {
			for page := 1; page <= len(feedA)/size+2; page++ {
				requireIDs(t, fmt.Sprintf("page %d size %d", page, size), latest(t, c.a, c.aID, nil, size, page),
					pageOf(feedA, page, size))
			}
		}
		requireIDs(t, "last partial page", latest(t, c.a, c.aID, nil, 4, 3), []int64{202, 103})
		requireIDs(t, "far page", latest(t, c.a, c.aID, nil, 1000, 1<<31-1), []int64{})
	})
	t.Run("listened and labels", func(t *testing.T) {
		t.Parallel()
		checkListenedAndLabels(t, c, c.a, `SELECT id, listened, labels FROM public.get_latest_releases($1, NULL, 100, 1)`,
			c.aID, map[int64]bool{101: true, 102: true, 103: true, 201: true, 401: true, 701: true})
	})
}

// checkListenedAndLabels runs a release query as who and checks each row's
// listened flag against the listened set and its labels object against the
// release's label.
func checkListenedAndLabels(t *testing.T, c *catalogue, who caller, sql, uid string, listened map[int64]bool) {
	t.Helper()
	type row struct {
		id       int64
		listened bool
		labels   map[string]any
	}
	var got []row
	err := c.read(context.Background(), who, func(tx pgx.Tx) error {
		rows, _ := tx.Query(context.Background(), sql, uid)
		var r row
		_, err := pgx.ForEachRow(rows, []any{&r.id, &r.listened, &r.labels}, func() error {
			got = append(got, r)
			r.labels = nil
			return nil
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range got {
		if r.listened != listened[r.id] {
			t.Errorf("release %d: listened = %v; want %v", r.id, r.listened, listened[r.id])
		}
		label := c.labels[r.id/100]
		if len(r.labels) != 2 || r.labels["label_name"] != label[0] || r.labels["label_url"] != label[1] {
			t.Errorf("release %d: labels = %v; want {label_name: %q, label_url: %q}", r.id, r.labels, label[0], label[1])
		}
	}
}

func TestGetRandomReleases(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)

	// Candidates: released within 90 days, with genres. Not 103 (no date),
	// 104 702 1201 (pre-orders), 202 (200 days old), 203 (no genres).
	candidates := []int64{101, 102, 201, 301, 401, 501, 601, 602, 701, 901}
	random := func(t *testing.T, labels, exclude []int64, n int, genres []string, days any) []int64 {
		t.Helper()
		return c.ids(t, c.a, `SELECT id FROM public.get_random_releases(user_id => $1, label_ids => $2,
			exclude_ids => $3, num_releases => $4, genre_filters => $5, time_range_days => $6)`,
			c.aID, labels, exclude, n, genres, days)
	}

	for _, tt := range []struct {
		name    string
		labels  []int64
		exclude []int64
		genres  []string
		days    any
		want    []int64
	}{
		{"every candidate once", nil, nil, nil, 90, candidates},
		{"null time range is 90 days", nil, nil, nil, nil, candidates},
		{"exclude_ids", nil, []int64{101, 102, 201}, nil, 90, without(candidates, 101, 102, 201)},
		{"exclude everything", nil, candidates, nil, 90, []int64{}},
		{"empty exclude_ids", nil, []int64{}, nil, 90, candidates},
		{"genre", nil, nil, []string{"ambient"}, 90, []int64{201, 601, 602}},
		{"genres overlap", nil, nil, []string{"house", "garage"}, 90, []int64{102, 401, 501, 701}},
		{"empty genre_filters is no filter", nil, nil, []string{}, 90, candidates},
		{"unknown genre", nil, nil, []string{"polka"}, 90, []int64{}},
		{"label_ids", []int64{1, 6}, nil, nil, 90, []int64{101, 102, 601, 602}},
		{"empty label_ids", []int64{}, nil, nil, 90, []int64{}},
		{"today only", nil, nil, nil, 0, []int64{602}},
		{"last 5 days", nil, nil, nil, 5, []int64{101, 201, 301, 401, 501, 602}},
		{"a year", nil, nil, nil, 365, sorted(append([]int64{202}, candidates...))},
		{"all filters", []int64{1, 2, 6}, []int64{601}, []string{"ambient", "techno"}, 5, []int64{101, 201, 602}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The window starts at a random point; every start must give the
			// whole set when the limit exceeds it.
			for range 5 {
				requireIDs(t, "ids", sorted(random(t, tt.labels, tt.exclude, 100, tt.genres, tt.days)), tt.want)
			}
		})
	}

	t.Run("num_releases picks distinct candidates and varies", func(t *testing.T) {
		t.Parallel()
		seen := map[string]bool{}
		for range 30 {
			got := random(t, nil, nil, 3, nil, 90)
			s := sorted(got)
			if len(s) != 3 || s[0] == s[1] || s[1] == s[2] || len(without(s, candidates...)) != 0 {
				t.Fatalf("got %v; want 3 distinct candidates", got)
			}
			seen[fmt.Sprint(s)] = true
		}
		if len(seen) < 2 {
			t.Fatalf("30 calls all returned %v", seen)
		}
	})
	t.Run("num_releases defaults to 9", func(t *testing.T) {
		t.Parallel()
		if got := c.ids(t, c.a, `SELECT id FROM public.get_random_releases($1)`, c.aID); len(got) != 9 {
			t.Fatalf("got %d releases; want 9", len(got))
		}
	})
	t.Run("listened and labels", func(t *testing.T) {
		t.Parallel()
		checkListenedAndLabels(t, c, c.a, `SELECT id, listened, labels FROM public.get_random_releases($1, num_releases => 100)`,
			c.aID, map[int64]bool{101: true, 102: true, 201: true, 401: true, 701: true})
	})
	t.Run("service_role may act for a member", func(t *testing.T) {
		t.Parallel()
		checkListenedAndLabels(t, c, service, `SELECT id, listened, labels FROM public.get_random_releases($1, num_releases => 100)`,
			c.aID, map[int64]bool{101: true, 102: true, 201: true, 401: true, 701: true})
	})
}

// TestProceduresRefuseSpoofedUsers calls every procedure that takes a user
// id with someone else's id, with none, and as anon.
func TestProceduresRefuseSpoofedUsers(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)
	calls := []string{
		`SELECT count(*) FROM public.get_all_filtered_labels_by_listen_status($1, 'all')`,
		`SELECT public.count_filtered_labels_by_listen_status($1, 'all')`,
		`SELECT count(*) FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 100)`,
		`SELECT count(*) FROM public.get_followed_labels($1, 1, 100)`,
		`SELECT count(*) FROM public.get_unfollowed_labels($1, 1, 100)`,
		`SELECT public.count_followed_labels($1)`,
		`SELECT public.count_unfollowed_labels($1)`,
		`SELECT count(*) FROM public.get_random_releases($1, num_releases => 100)`,
		`SELECT count(*) FROM public.get_latest_releases($1, page_size => 100)`,
	}
	ctx := context.Background()
	for _, sql := range calls {
		t.Run(sql, func(t *testing.T) {
			t.Parallel()
			own := c.count(t, c.a, sql, c.aID)
			if own == 0 {
				t.Fatal("the fixture should give A some rows")
			}
			if got := c.count(t, service, sql, c.aID); got != own {
				t.Fatalf("service_role for A = %d; want A's own %d", got, own)
			}
			_, err := c.queryIDs(ctx, c.b, sql, c.aID)
			requirePgError(t, err, "42501", "does not belong to the signed-in user")
			_, err = c.queryIDs(ctx, c.a, sql, nil)
			requirePgError(t, err, "42501", "does not belong to the signed-in user")
			_, err = c.queryIDs(ctx, anon, sql, c.aID)
			requirePgError(t, err, "42501", "permission denied for function")
		})
	}
	t.Run("get_latest_releases_per_label is for members only", func(t *testing.T) {
		t.Parallel()
		_, err := c.queryIDs(ctx, anon, `SELECT id FROM public.get_latest_releases_per_label('{1}', 5)`)
		requirePgError(t, err, "42501", "permission denied for function")
	})
	t.Run("private helpers are not for anon", func(t *testing.T) {
		t.Parallel()
		_, err := c.queryIDs(ctx, anon, `SELECT 1 FROM private.followed_labels_status($1)`, c.aID)
		requirePgError(t, err, "42501", "permission denied for function")
	})
}

// TestProceduresRejectBadInput checks that out-of-range arguments fail with
// invalid_parameter_value rather than a crash or a silent empty list.
func TestProceduresRejectBadInput(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)
	ctx := context.Background()
	for _, tt := range []struct{ name, sql string }{
		{"filtered page 0", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', 0, 10)`},
		{"filtered page null", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', NULL, 10)`},
		{"filtered size 0", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 0)`},
		{"filtered size 1001", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 1001)`},
		{"filtered unknown filter_type", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'bogus', 1, 10)`},
		{"filtered null filter_type", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, NULL, 1, 10)`},
		{"all unknown filter_type", `SELECT id FROM public.get_all_filtered_labels_by_listen_status($1, 'Checked')`},
		{"count unknown filter_type", `SELECT public.count_filtered_labels_by_listen_status($1, '')`},
		{"followed page 0", `SELECT id FROM public.get_followed_labels($1, 0, 10)`},
		{"followed page -1", `SELECT id FROM public.get_followed_labels($1, -1, 10)`},
		{"followed size 0", `SELECT id FROM public.get_followed_labels($1, 1, 0)`},
		{"followed size 1001", `SELECT id FROM public.get_followed_labels($1, 1, 1001)`},
		{"unfollowed page 0", `SELECT id FROM public.get_unfollowed_labels($1, 0, 10)`},
		{"unfollowed size 1001", `SELECT id FROM public.get_unfollowed_labels($1, 1, 1001)`},
		{"latest page 0", `SELECT id FROM public.get_latest_releases($1, NULL, 9, 0)`},
		{"latest size 0", `SELECT id FROM public.get_latest_releases($1, NULL, 0, 1)`},
		{"latest size 1001", `SELECT id FROM public.get_latest_releases($1, NULL, 1001, 1)`},
		{"per label limit 0", `SELECT id FROM public.get_latest_releases_per_label('{1}', 0)`},
		{"per label limit 101", `SELECT id FROM public.get_latest_releases_per_label('{1}', 101)`},
		{"per label too many labels", `SELECT id FROM public.get_latest_releases_per_label(
			ARRAY(SELECT generate_series(1, 1001)::bigint), 5)`},
		{"random num 0", `SELECT id FROM public.get_random_releases($1, num_releases => 0)`},
		{"random num 101", `SELECT id FROM public.get_random_releases($1, num_releases => 101)`},
		{"random negative days", `SELECT id FROM public.get_random_releases($1, time_range_days => -1)`},
		{"random days 36501", `SELECT id FROM public.get_random_releases($1, time_range_days => 36501)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := c.queryIDs(ctx, c.a, tt.sql, userArg(tt.sql, c.aID)...)
			requirePgError(t, err, "22023", "")
		})
	}

	t.Run("limits themselves are accepted", func(t *testing.T) {
		t.Parallel()
		for _, sql := range []string{
			`SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 1000)`,
			`SELECT id FROM public.get_followed_labels($1, 1, 1000)`,
			`SELECT id FROM public.get_unfollowed_labels($1, 1, 1)`,
			`SELECT id FROM public.get_latest_releases($1, NULL, 1000, 1)`,
			`SELECT id FROM public.get_latest_releases_per_label('{1}', 100)`,
			`SELECT id FROM public.get_random_releases($1, num_releases => 100, time_range_days => 36500)`,
			`SELECT id FROM public.get_random_releases($1, num_releases => 1, time_range_days => 0)`,
		} {
			if _, err := c.queryIDs(ctx, c.a, sql, userArg(sql, c.aID)...); err != nil {
				t.Errorf("%s: %v", sql, err)
			}
		}
	})
}

// userArg passes the user id to statements that take one as $1.
func userArg(sql, uid string) []any {
	if strings.Contains(sql, "$1") {
		return []any{uid}
	}
	return nil
}
