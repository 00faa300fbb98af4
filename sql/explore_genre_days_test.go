package sqlfiles_test

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	sqlfiles "github.com/labelbase/labelbase/sql"
)

// oldExploreGenres is get_explore_genres' query before migration
// 20261127234500, as 000021 wrote it, with the range as $1 (NULL for the
// default). Run as a member it is what the kept count must answer.
const oldExploreGenres = `SELECT g.genre, count(*)::bigint
      FROM public.releases r
     CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
     WHERE r.genres <> '{}'
       AND r.release_date BETWEEN current_date - coalesce($1::integer, 90) AND current_date
     GROUP BY g.genre
     ORDER BY g.genre`

// genreDaysRecount is private.release_genre_days counted from scratch:
// releases with a date, of labels not hidden, one row per unnest element.
const genreDaysRecount = `SELECT r.release_date::text, g.genre, count(*)
      FROM public.releases r
     CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
     WHERE r.release_date IS NOT NULL AND g.genre IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM private.hidden_labels h WHERE h.label_id = r.label_id)
     GROUP BY 1, 2 ORDER BY 1, 2`

const genreDaysKept = `SELECT day::text, genre, releases FROM private.release_genre_days
     WHERE releases <> 0 ORDER BY 1, 2`

// The ranges compared: the default, today, the boundaries of the 180-day
// fixture rows (2107 at -180, 2108 at -181), and everything.
var genreRanges = []any{nil, 0, 1, 7, 30, 90, 179, 180, 365, 36500}

// genreDayFixture adds to the catalogue what the kept count must get right:
// a hidden label with releases (dated and not), a genre twice in one
// release, a NULL element, an empty array, releases on the edges of the
// 180-day range, and 400 releases over 420 days, some ahead.
const genreDayFixture = `
	INSERT INTO public.labels (id, label_name, label_url, tags) VALUES
	  (20, 'Hidden Hits', 'https://hiddenhits.bandcamp.com', '{techno}'),
	  (21, 'Mixed Bag', 'https://mixedbag.bandcamp.com', '{dub}'),
	  (22, 'Many Days', 'https://manydays.bandcamp.com', '{jazz}');
	INSERT INTO public.releases (id, label_id, title, release_url, release_date, genres)
	SELECT id, label_id, 'G ' || id, 'https://x.bandcamp.com/album/g' || id, current_date + days, genres
	  FROM (VALUES
	    (2001, 20, -3, '{techno,house}'::text[]), (2002, 20, -40, '{ambient}'), (2003, 20, NULL, '{techno}'),
	    (2101, 21, -2, '{techno,techno,house}'), (2102, 21, -9, '{dub,NULL}'), (2103, 21, -15, '{}'),
	    (2104, 21, NULL, '{dub}'), (2105, 21, -100, '{jazz}'), (2106, 21, 3, '{jazz}'),
	    (2107, 21, -180, '{dub}'), (2108, 21, -181, '{dub}')
	  ) AS r (id, label_id, days, genres);
	INSERT INTO public.releases (id, label_id, title, release_url, release_date, genres)
	SELECT 3000 + g, 22, 'M ' || g, 'https://x.bandcamp.com/album/m' || g, current_date + 20 - (g * 37) % 420,
	       (CASE g % 7 WHEN 0 THEN '{}' WHEN 1 THEN '{jazz,dub}' WHEN 2 THEN '{jazz,jazz}' WHEN 3 THEN '{ambient}'
	                   WHEN 4 THEN '{house,techno,dub}' WHEN 5 THEN '{shoegaze}' ELSE '{techno}' END)::text[]
	  FROM generate_series(1, 400) g;
	INSERT INTO private.hidden_labels (label_id) VALUES (20);`

// genreLines runs a (genre, count) query as who and returns "genre:n"
// lines, "NULL:n" for a NULL genre.
func genreLines(t *testing.T, e *env, who caller, sql string, args ...any) []string {
	t.Helper()
	var got []string
	err := e.read(context.Background(), who, func(tx pgx.Tx) error {
		rows, _ := tx.Query(context.Background(), sql, args...)
		var err error
		got, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
			var genre *string
			var n int64
			if err := row.Scan(&genre, &n); err != nil {
				return "", err
			}
			if genre == nil {
				return fmt.Sprintf("NULL:%d", n), nil
			}
			return fmt.Sprintf("%s:%d", *genre, n), nil
		})
		return err
	})
	if err != nil {
		t.Fatalf("as %s: %s: %v", who.name, sql, err)
	}
	return got
}

// dayRows returns a (day, genre, n) query's rows as the superuser.
func dayRows(t *testing.T, e *env, sql string) []string {
	t.Helper()
	rows, _ := e.db.Pool.Query(context.Background(), sql)
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		var day, genre string
		var n int64
		err := row.Scan(&day, &genre, &n)
		return day + " " + genre + ":" + fmt.Sprint(n), err
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return got
}

// checkGenreDays compares the kept count with a recount, and
// get_explore_genres with the old query for a member (NULL genres aside:
// the kept count has none) and for service_role (the scan, unchanged).
func checkGenreDays(t *testing.T, c *catalogue, step string) {
	t.Helper()
	if kept, want := dayRows(t, c.env, genreDaysKept), dayRows(t, c.env, genreDaysRecount); !slices.Equal(kept, want) {
		t.Errorf("%s: kept %v\nrecounted %v", step, kept, want)
	}
	var negative int64
	if err := c.db.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM private.release_genre_days WHERE releases < 0`).Scan(&negative); err != nil || negative != 0 {
		t.Errorf("%s: %d negative rows (%v)", step, negative, err)
	}
	for _, days := range genreRanges {
		got := genreLines(t, c.env, c.a, `SELECT genre, releases FROM public.get_explore_genres(time_range_days => $1)`, days)
		old := genreLines(t, c.env, c.a, oldExploreGenres, days)
		want := slices.DeleteFunc(slices.Clone(old), func(l string) bool { return strings.HasPrefix(l, "NULL:") })
		if !slices.Equal(got, want) {
			t.Errorf("%s, %v days: member gets %v; the old query %v", step, days, got, old)
		}
		got = genreLines(t, c.env, service, `SELECT genre, releases FROM public.get_explore_genres(time_range_days => $1)`, days)
		if want := genreLines(t, c.env, service, oldExploreGenres, days); !slices.Equal(got, want) {
			t.Errorf("%s, %v days: service_role gets %v; the old query %v", step, days, got, want)
		}
	}
}

// The kept count follows every kind of write to releases and hidden_labels,
// and a member's get_explore_genres answers what the old query answered.
func TestExploreGenreDaysKeptByTriggers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogue(t)
	superExec(t, c.db, genreDayFixture)
	checkGenreDays(t, c, "fixture")
	// The fixture holds what the cases are for.
	if got := genreLines(t, c.env, c.a, oldExploreGenres, 90); !slices.Contains(got, "NULL:1") {
		t.Fatalf("the old query shows no NULL genre: %v", got)
	}

	for _, s := range []struct{ step, sql string }{
		{"insert three, one in a hidden label", `INSERT INTO public.releases (id, label_id, title, release_url, release_date, genres) VALUES
			(4001, 21, 'a', 'https://x.bandcamp.com/album/a1', current_date - 1, '{techno,dub}'),
			(4002, 20, 'b', 'https://x.bandcamp.com/album/a2', current_date - 1, '{techno}'),
			(4003, 5, 'c', 'https://x.bandcamp.com/album/a3', current_date - 30, '{garage,garage}')`},
		{"insert, one a duplicate", `INSERT INTO public.releases (id, label_id, title, release_url, release_date, genres) VALUES
			(4010, 1, 'dup', 'https://x.bandcamp.com/album/r101', current_date, '{dup}'),
			(4011, 3, 'new', 'https://x.bandcamp.com/album/a11', current_date, '{dub}') ON CONFLICT DO NOTHING`},
		{"upsert as the crawler does", `WITH written AS (
			  INSERT INTO public.releases AS rel (id, label_id, title, release_url, release_date, genres) VALUES
			    (4020, 3, 'x', 'https://x.bandcamp.com/album/r301', current_date - 50, '{dub,techno}'),
			    (4021, 3, 'y', 'https://x.bandcamp.com/album/a21', current_date - 50, '{dub}')
			  ON CONFLICT (release_url) DO UPDATE SET release_date = EXCLUDED.release_date, genres = EXCLUDED.genres
			  RETURNING xmax = 0 AS inserted)
			SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM written`},
		{"change genres, dates, to and from none", `
			UPDATE public.releases SET genres = '{ambient,NULL}' WHERE id = 2101;
			UPDATE public.releases SET release_date = NULL WHERE id = 901;
			UPDATE public.releases SET release_date = current_date - 1 WHERE id = 103;
			UPDATE public.releases SET genres = '{}' WHERE id = 201;
			UPDATE public.releases SET genres = '{house}' WHERE id = 2103`},
		{"change titles only", `UPDATE public.releases SET title = title || '!'`},
		{"change ids", `UPDATE public.releases SET id = id + 100000 WHERE label_id = 22 AND id % 5 = 0`},
		{"move releases into a hidden label and out of it", `
			UPDATE public.releases SET label_id = 20 WHERE id IN (301, 401);
			UPDATE public.releases SET label_id = 21 WHERE id = 2001`},
		{"change a hidden label's releases", `UPDATE public.releases SET genres = '{drone}', release_date = current_date - 2 WHERE label_id = 20`},
		{"hide three labels, one without releases", `INSERT INTO private.hidden_labels (label_id) VALUES (21), (6), (8)`},
		{"hide one again", `INSERT INTO private.hidden_labels (label_id) VALUES (21) ON CONFLICT DO NOTHING`},
		{"unhide one", `DELETE FROM private.hidden_labels WHERE label_id = 6`},
		{"update hidden rows in place", `UPDATE private.hidden_labels SET hidden_at = now()`},
		{"move a hidden row to another label", `UPDATE private.hidden_labels SET label_id = 22 WHERE label_id = 21`},
		{"delete releases, some of a hidden label", `DELETE FROM public.releases WHERE id IN (2002, 102, 4001, 4002)`},
		{"delete a label", `DELETE FROM public.labels WHERE id = 1`},
		{"delete a hidden label", `DELETE FROM public.labels WHERE id = 20`},
		{"delete none", `DELETE FROM public.releases WHERE id = -1`},
		{"update none", `UPDATE public.releases SET genres = '{x}' WHERE id = -1`},
		{"unhide none", `DELETE FROM private.hidden_labels WHERE label_id = -1`},
	} {
		if _, err := c.db.Pool.Exec(ctx, s.sql); err != nil {
			t.Fatalf("%s: %v", s.step, err)
		}
		checkGenreDays(t, c, s.step)
	}

	for _, rolledBack := range []string{
		`INSERT INTO public.releases (label_id, title, release_url, release_date, genres)
		 VALUES (3, 'gone', 'https://x.bandcamp.com/album/gone', current_date, '{techno}')`,
		`INSERT INTO private.hidden_labels (label_id) VALUES (3)`,
		`DELETE FROM private.hidden_labels`,
	} {
		tx, err := c.db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, rolledBack); err != nil {
			t.Fatal(err)
		}
		_ = tx.Rollback(ctx)
		checkGenreDays(t, c, "rolled back: "+rolledBack)
	}

	for _, s := range []struct{ step, sql string }{
		{"unhide all by TRUNCATE", `TRUNCATE private.hidden_labels`},
		{"hide one after it", `INSERT INTO private.hidden_labels (label_id) VALUES (22)`},
		{"truncate releases", `TRUNCATE public.releases CASCADE`},
		{"insert after it", `INSERT INTO public.releases (label_id, title, release_url, release_date, genres)
			SELECT 2 + g % 4, 'T ' || g, 'https://x.bandcamp.com/album/t' || g, current_date - g, '{techno}'
			  FROM generate_series(1, 20) g`},
		{"truncate labels", `TRUNCATE public.labels CASCADE`},
	} {
		if _, err := c.db.Pool.Exec(ctx, s.sql); err != nil {
			t.Fatalf("%s: %v", s.step, err)
		}
		checkGenreDays(t, c, s.step)
	}
	var rows int64
	if err := c.db.Pool.QueryRow(ctx, `SELECT count(*) FROM private.release_genre_days`).Scan(&rows); err != nil || rows != 0 {
		t.Errorf("after truncating labels: %d rows kept (%v)", rows, err)
	}
}

// Members read the kept count, everyone else the scan; the function keeps
// its signature, volatility, security and grants; members reach the count
// only through private.release_genre_days_sum.
func TestExploreGenresMembersReadKeptDays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogue(t)

	var args, result, volatility string
	var definer bool
	var config []string
	if err := c.db.Pool.QueryRow(ctx, `SELECT pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
		       p.provolatile::text, p.prosecdef, coalesce(p.proconfig, '{}')
		  FROM pg_proc p WHERE p.oid = 'public.get_explore_genres'::regproc`).Scan(&args, &result, &volatility, &definer, &config); err != nil {
		t.Fatal(err)
	}
	if args != "time_range_days integer DEFAULT 90" || result != "TABLE(genre text, releases bigint)" ||
		volatility != "s" || definer || !slices.Equal(config, []string{`search_path=""`}) {
		t.Errorf("get_explore_genres(%s) %s, volatility %s, definer %v, %v", args, result, volatility, definer, config)
	}
	if err := c.db.Pool.QueryRow(ctx, `SELECT p.prosecdef, coalesce(p.proconfig, '{}')
		  FROM pg_proc p WHERE p.oid = 'private.release_genre_days_sum'::regproc`).Scan(&definer, &config); err != nil {
		t.Fatal(err)
	}
	if !definer || !slices.Equal(config, []string{`search_path=""`}) {
		t.Errorf("private.release_genre_days_sum: definer %v, %v", definer, config)
	}
	for _, g := range []struct {
		role, what string
		want       bool
	}{
		{"anon", "public.get_explore_genres(integer)", false},
		{"authenticated", "public.get_explore_genres(integer)", true},
		{"service_role", "public.get_explore_genres(integer)", true},
		{"anon", "private.release_genre_days_sum(integer)", false},
		{"authenticated", "private.release_genre_days_sum(integer)", true},
		{"service_role", "private.release_genre_days_sum(integer)", false},
		{"public", "private.release_genre_days_track()", false},
		{"public", "private.release_genre_days_hidden_track()", false},
		{"public", "private.release_genre_days_label_deleted()", false},
	} {
		var got bool
		if err := c.db.Pool.QueryRow(ctx, `SELECT has_function_privilege($1, $2, 'EXECUTE')`, g.role, g.what).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != g.want {
			t.Errorf("%s may execute %s: %v, want %v", g.role, g.what, got, g.want)
		}
	}
	for _, role := range []string{"anon", "authenticated", "service_role"} {
		var got bool
		if err := c.db.Pool.QueryRow(ctx, `SELECT has_table_privilege($1, 'private.release_genre_days', 'SELECT, INSERT, UPDATE, DELETE')`,
			role).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got {
			t.Errorf("%s has privileges on private.release_genre_days", role)
		}
	}
	_, err := c.exec(ctx, c.a, `SELECT * FROM private.release_genre_days`)
	requirePgError(t, err, "42501", "permission denied")

	// Skew the kept count: a member's answer shows it, service_role's (the
	// scan) does not, and calling the reader directly gives the same.
	superExec(t, c.db, `UPDATE private.release_genre_days SET releases = releases + 1000
		WHERE day = current_date - 1 AND genre = 'techno'`)
	genres := func(who caller) string {
		return strings.Join(genreLines(t, c.env, who, `SELECT genre, releases FROM public.get_explore_genres(90)`), " ")
	}
	if got, want := genres(c.a), "ambient:3 garage:1 house:3 techno:1004"; got != want {
		t.Errorf("member: %s, want %s (the kept count)", got, want)
	}
	if got, want := genres(service), "ambient:3 garage:1 house:3 techno:4"; got != want {
		t.Errorf("service_role: %s, want %s (the scan)", got, want)
	}
	if got, want := strings.Join(genreLines(t, c.env, c.a, `SELECT * FROM private.release_genre_days_sum(90)`), " "),
		"ambient:3 garage:1 house:3 techno:1004"; got != want {
		t.Errorf("release_genre_days_sum(90) as a member: %s, want %s", got, want)
	}
	// Zero rows are kept, not shown.
	superExec(t, c.db, `UPDATE private.release_genre_days SET releases = 0 WHERE genre = 'garage'`)
	if got, want := genres(c.a), "ambient:3 house:3 techno:1004"; got != want {
		t.Errorf("member, garage kept at 0: %s, want %s", got, want)
	}
}

// migrationFile returns one of this change's migration files.
func migrationFile(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(sqlfiles.Migrations, "migrations/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The migration fills the count from the data already there, and down
// restores 000021's get_explore_genres and drops the rest.
func TestExploreGenreDaysMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogue(t)
	superExec(t, c.db, genreDayFixture+`
		INSERT INTO private.hidden_labels (label_id) VALUES (6);`)

	superExec(t, c.db, migrationFile(t, "20261127234500_explore_genre_days.down.sql"))
	var src string
	if err := c.db.Pool.QueryRow(ctx, `SELECT prosrc FROM pg_proc WHERE oid = 'public.get_explore_genres'::regproc`).Scan(&src); err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)CREATE FUNCTION public\.get_explore_genres.*?AS \$\$(.*?)\$\$`).
		FindStringSubmatch(migrationFile(t, "000021_tag_and_genre_lists.up.sql"))
	if body == nil || src != body[1] {
		t.Errorf("after down, get_explore_genres is\n%s\nwant 000021's\n%v", src, body)
	}
	var left int64
	if err := c.db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_trigger WHERE tgname LIKE '%genre_days%')
		     + (SELECT count(*) FROM pg_proc WHERE proname LIKE 'release_genre_days%')
		     + (SELECT count(*) FROM pg_class WHERE relname LIKE 'release_genre_days%')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("after down: %d triggers, functions and relations left (%v)", left, err)
	}
	if got := genreLines(t, c.env, c.a, `SELECT genre, releases FROM public.get_explore_genres(90)`); !slices.Contains(got, "NULL:1") {
		t.Errorf("after down, members scan again (a NULL genre shows): %v", got)
	}

	superExec(t, c.db, migrationFile(t, "20261127234500_explore_genre_days.up.sql"))
	checkGenreDays(t, c, "up on existing data")
	if _, err := c.db.Pool.Exec(ctx, `DELETE FROM private.hidden_labels WHERE label_id = 6`); err != nil {
		t.Fatal(err)
	}
	checkGenreDays(t, c, "unhide after up")
}

// Hiding or unhiding a label while its releases are written, in either
// order, ends with the right count: the second waits for the first to
// commit and then sees its rows. Two writers of the same days and genres
// queue instead of deadlocking.
func TestExploreGenreDaysConcurrentWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogue(t)
	n := 0
	writers := []struct {
		name string
		sql  func() string
	}{
		{"insert a release", func() string {
			n++
			return fmt.Sprintf(`INSERT INTO public.releases (label_id, title, release_url, release_date, genres)
				VALUES (6, 'c', 'https://x.bandcamp.com/album/c%d', current_date - %d, '{techno,dub}')`, n, n)
		}},
		{"change a release's genres", func() string {
			return `UPDATE public.releases SET genres = CASE WHEN genres = '{ambient}' THEN '{dub,house}'::text[] ELSE '{ambient}' END WHERE id = 601`
		}},
		{"change a release's date", func() string {
			return `UPDATE public.releases SET release_date = release_date - 1 WHERE id = 602`
		}},
		{"delete a release", func() string {
			return `DELETE FROM public.releases WHERE id = (SELECT max(id) FROM public.releases WHERE label_id = 6 AND title = 'c')`
		}},
		{"move a release between labels", func() string {
			return `UPDATE public.releases SET label_id = CASE label_id WHEN 6 THEN 3 ELSE 6 END WHERE id = 301`
		}},
	}
	admins := []struct{ name, sql string }{
		{"hide", `INSERT INTO private.hidden_labels (label_id) VALUES (6)`},
		{"unhide", `DELETE FROM private.hidden_labels WHERE label_id = 6`},
	}
	// race runs first in one transaction, then second in another, which
	// must wait for the first; then firstAgain (if any) in the first, which
	// must not wait for the second; then commits both and checks the count.
	race := func(step, first, second, firstAgain string) {
		t.Helper()
		tx1, err := c.db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx1.Rollback(ctx) }()
		if _, err := tx1.Exec(ctx, first); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		tx2, err := c.db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx2.Rollback(ctx) }()
		var pid int32
		if err := tx2.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := tx2.Exec(ctx, second)
			done <- err
		}()
		waited := false
	poll:
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			var wait *string
			if err := c.db.Pool.QueryRow(ctx, `SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&wait); err != nil {
				t.Fatal(err)
			}
			if wait != nil && *wait == "Lock" {
				waited = true
				break
			}
			select {
			case err := <-done:
				done <- err
				break poll
			case <-time.After(10 * time.Millisecond):
			}
		}
		if !waited {
			t.Errorf("%s: the second statement did not wait for the first", step)
		}
		if firstAgain != "" {
			if _, err := tx1.Exec(ctx, firstAgain); err != nil {
				t.Fatalf("%s: the first, again: %v", step, err)
			}
		}
		if err := tx1.Commit(ctx); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if err := <-done; err != nil {
			t.Fatalf("%s: second statement: %v", step, err)
		}
		if err := tx2.Commit(ctx); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		checkGenreDays(t, c, step)
	}
	for _, w := range writers {
		for _, adminFirst := range []bool{true, false} {
			for _, a := range admins {
				step := fmt.Sprintf("%s, then %s", a.name, w.name)
				first, second := a.sql, w.sql()
				if !adminFirst {
					step = fmt.Sprintf("%s, then %s", w.name, a.name)
					first, second = second, first
				}
				race(step, first, second, "")
			}
		}
	}

	// Two writers of the same days and genres. The first holds (-2, house);
	// the second writes (-1, techno) and (-2, house), in that row order; the
	// first then writes (-1, techno). Upserts go in key order, so the second
	// waits at (-2, house) before taking (-1, techno), and the first goes on.
	race("two writers",
		`INSERT INTO public.releases (label_id, title, release_url, release_date, genres)
		 VALUES (3, 'p1', 'https://x.bandcamp.com/album/p1', current_date - 2, '{house}')`,
		`INSERT INTO public.releases (label_id, title, release_url, release_date, genres) VALUES
		 (9, 'q1', 'https://x.bandcamp.com/album/q1', current_date - 1, '{techno}'),
		 (9, 'q2', 'https://x.bandcamp.com/album/q2', current_date - 2, '{house}')`,
		`INSERT INTO public.releases (label_id, title, release_url, release_date, genres)
		 VALUES (3, 'p2', 'https://x.bandcamp.com/album/p2', current_date - 1, '{techno}')`)
}
