package sqlfiles_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// lines runs a query as c and returns its rows as "a:b" strings.
func (c *catalogue) lines(t *testing.T, who caller, sql string, args ...any) []string {
	t.Helper()
	var got []string
	err := c.read(context.Background(), who, func(tx pgx.Tx) error {
		rows, _ := tx.Query(context.Background(), sql, args...)
		var err error
		got, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
			var name string
			var n int64
			err := row.Scan(&name, &n)
			return name + ":" + strconv.FormatInt(n, 10), err
		})
		return err
	})
	if err != nil {
		t.Fatalf("as %s: %s: %v", who.name, sql, err)
	}
	return got
}

// The Explore panel's genres are those get_random_releases can pick from in
// the range: released in it, with genres; pre-orders and undated ones not.
func TestGetExploreGenres(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)
	genres := func(days any) []string {
		return c.lines(t, c.a, `SELECT genre, releases FROM public.get_explore_genres(time_range_days => $1)`, days)
	}
	// 90 days: 101 techno, 102 house+techno, 201 ambient, 301 techno, 401 house,
	// 501 garage, 601 602 ambient, 701 house, 901 techno.
	if got, want := strings.Join(genres(90), " "), "ambient:3 garage:1 house:3 techno:4"; got != want {
		t.Errorf("90 days: %s, want %s", got, want)
	}
	if got, want := strings.Join(genres(nil), " "), "ambient:3 garage:1 house:3 techno:4"; got != want {
		t.Errorf("default range: %s, want %s", got, want)
	}
	// Today: 602 only (203 has no genres).
	if got, want := strings.Join(genres(0), " "), "ambient:1"; got != want {
		t.Errorf("today: %s, want %s", got, want)
	}
	// 365 days adds 202 (ambient, 200 days old).
	if got, want := strings.Join(genres(365), " "), "ambient:4 garage:1 house:3 techno:4"; got != want {
		t.Errorf("a year: %s, want %s", got, want)
	}
	_, err := c.exec(context.Background(), c.a, `SELECT * FROM public.get_explore_genres(-1)`)
	requirePgError(t, err, "22023", "time_range_days must be between 0 and 36500")
	if _, err := c.exec(context.Background(), anon, `SELECT * FROM public.get_explore_genres(90)`); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("anon may list genres: %v", err)
	}
}

// The Labels tag row: every tag of the caller's followed labels, or of the
// others, most used first, from the caller's own follows.
func TestGetLabelTags(t *testing.T) {
	t.Parallel()
	c := setupCatalogue(t)
	tags := func(who caller, followed bool) string {
		return strings.Join(c.lines(t, who, `SELECT tag, labels FROM public.get_label_tags(followed => $1)`, followed), " ")
	}
	// A follows 1 (techno,house) 2 (ambient) 4 (house) 6 (ambient,techno) 7 (house) 8 () 12 (techno).
	if got, want := tags(c.a, true), "house:3 techno:3 ambient:2"; got != want {
		t.Errorf("A's followed tags: %s, want %s", got, want)
	}
	// The others: 3 techno, 5 garage, 9 techno, 10 ambient, 11 techno.
	if got, want := tags(c.a, false), "techno:3 ambient:1 garage:1"; got != want {
		t.Errorf("A's other tags: %s, want %s", got, want)
	}
	// B follows 1 3 9.
	if got, want := tags(c.b, true), "techno:3 house:1"; got != want {
		t.Errorf("B's followed tags: %s, want %s", got, want)
	}
	if _, err := c.exec(context.Background(), anon, `SELECT * FROM public.get_label_tags(true)`); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("anon may list tags: %v", err)
	}
}
