package sqlfiles_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// The release queries inside the functions, copied verbatim from their
// bodies. TestReleaseQueriesUseIndexes first checks that each copy still
// appears in its function (so an edited function fails here instead of
// silently testing stale SQL), then swaps the PL/pgSQL variables for
// parameters and EXPLAINs the result.
const (
	// get_latest_releases: the probe that finds the page's oldest possible
	// date, the two ways of reading candidates (bounded by that date or
	// not), and the page itself.
	latestCutQuery = `SELECT c.release_date INTO v_cut
    FROM unnest(v_labels) AS l(id)
    CROSS JOIN LATERAL (
      SELECT r.release_date, r.id FROM public.releases r
       WHERE r.label_id = l.id AND r.release_date <= current_date
       ORDER BY r.release_date DESC NULLS LAST, r.id DESC
       LIMIT v_probe) c
   ORDER BY c.release_date DESC NULLS LAST, c.id DESC
   LIMIT 1 OFFSET v_want - 1`

	latestUnboundedQuery = `SELECT c.id
        FROM unnest(v_labels) AS l(id)
        CROSS JOIN LATERAL (
          SELECT r.release_date, r.id FROM public.releases r
           WHERE r.label_id = l.id AND (r.release_date IS NULL OR r.release_date <= current_date)
           ORDER BY r.release_date DESC NULLS LAST, r.id DESC
           LIMIT v_want) c
       ORDER BY c.release_date DESC NULLS LAST, c.id DESC
       LIMIT v_size OFFSET v_want - v_size`

	latestBoundedQuery = `SELECT c.id
        FROM unnest(v_labels) AS l(id)
        CROSS JOIN LATERAL (
          SELECT r.release_date, r.id FROM public.releases r
           WHERE r.label_id = l.id AND r.release_date >= v_cut AND r.release_date <= current_date
           ORDER BY r.release_date DESC NULLS LAST, r.id DESC
           LIMIT v_want) c
       ORDER BY c.release_date DESC NULLS LAST, c.id DESC
       LIMIT v_size OFFSET v_want - v_size`

	latestPageQuery = `SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich,
           EXISTS (SELECT 1 FROM public.user_listened_releases u
                    WHERE u.user_id = v_user AND u.release_id = r.id),
           jsonb_build_object('label_name', l.label_name, 'label_url', l.label_url)
      FROM unnest(v_ids) WITH ORDINALITY AS p(id, pos)
      JOIN public.releases r ON r.id = p.id
      JOIN public.labels l ON l.id = r.label_id
     ORDER BY p.pos`

	latestPerLabelQuery = `SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich
      FROM unnest(coalesce(p_label_ids, '{}')) WITH ORDINALITY AS l(id, pos)
      CROSS JOIN LATERAL (
        SELECT * FROM public.releases r
         WHERE r.label_id = l.id
           AND (r.release_date IS NULL OR r.release_date <= current_date)
         ORDER BY r.release_date DESC NULLS LAST, r.id DESC
         LIMIT p_limit) r
     ORDER BY l.pos, r.release_date DESC NULLS LAST, r.id DESC`

	// private.followed_labels_status, behind the Collection page.
	followedStatusQuery = `SELECT l.id, l.label_name, l.label_url, l.tags,
         coalesce((SELECT false FROM public.releases r
                    WHERE r.label_id = f.label_id
                      AND (r.release_date IS NULL OR r.release_date <= current_date)
                      AND NOT EXISTS (SELECT 1 FROM public.user_listened_releases u
                                       WHERE u.user_id = p_user AND u.release_id = r.id)
                    LIMIT 1),
                  EXISTS (SELECT 1 FROM public.releases r
                           WHERE r.label_id = f.label_id
                             AND (r.release_date IS NULL OR r.release_date <= current_date)))
    FROM public.user_follow_labels f
    JOIN public.labels l ON l.id = f.label_id
   WHERE f.user_id = p_user`

	// get_explore_genres (000021): the genres of a time range, for Explore's
	// filter panel. Since 20261127234500 only callers other than members
	// (service_role, the owner) scan releases; members read the kept count
	// below.
	exploreGenresQuery = `SELECT g.genre, count(*)::bigint
      FROM public.releases r
     CROSS JOIN LATERAL unnest(r.genres) AS g(genre)
     WHERE r.genres <> '{}'
       AND r.release_date BETWEEN current_date - v_days AND current_date
     GROUP BY g.genre
     ORDER BY g.genre`
	// private.release_genre_days_sum (20261127234500): a member's genres of a
	// time range, summed from the kept count per day and genre.
	genreDaysSumQuery = `SELECT d.genre, sum(d.releases)::bigint
    FROM private.release_genre_days d
   WHERE d.day BETWEEN current_date - p_days AND current_date
     AND d.releases > 0
   GROUP BY d.genre
   ORDER BY d.genre`
	randomReleasesQuery = `WITH picked AS (
      (SELECT r.id, r.random_key FROM public.releases r
        WHERE r.genres <> '{}'
          AND r.release_date BETWEEN v_from AND current_date
          AND (v_labels IS NULL OR r.label_id = ANY (v_labels))
          AND (v_genres IS NULL OR r.genres && v_genres)
          AND r.id <> ALL (v_exclude)
          AND r.random_key >= v_start
        ORDER BY r.random_key
        LIMIT v_n)
      UNION ALL
      (SELECT r.id, r.random_key FROM public.releases r
        WHERE r.genres <> '{}'
          AND r.release_date BETWEEN v_from AND current_date
          AND (v_labels IS NULL OR r.label_id = ANY (v_labels))
          AND (v_genres IS NULL OR r.genres && v_genres)
          AND r.id <> ALL (v_exclude)
          AND r.random_key < v_start
        ORDER BY r.random_key
        LIMIT v_n)
      LIMIT v_n
    )
    SELECT r.id, r.label_id, r.title, r.artist, r.release_url, r.release_date, r.image_url, r.genres, r.rich,
           EXISTS (SELECT 1 FROM public.user_listened_releases u
                    WHERE u.user_id = v_user AND u.release_id = r.id),
           jsonb_build_object('label_name', l.label_name, 'label_url', l.label_url)
      FROM picked p
      JOIN public.releases r ON r.id = p.id
      JOIN public.labels l ON l.id = r.label_id`
)

// planNode is the part of an EXPLAIN (FORMAT JSON) node the test reads.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	Plans        []planNode `json:"Plans"`
}

func (n planNode) walk(fn func(planNode)) {
	fn(n)
	for _, c := range n.Plans {
		c.walk(fn)
	}
}

var statements atomic.Int64

var spaces = regexp.MustCompile(`\s+`)

func squash(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// TestReleaseQueriesUseIndexes checks, on a catalogue of 200 labels and 20k
// releases, that the release queries behind the feed, the collection strips
// and Explore reach releases (or the kept count of Explore's genres, by its
// primary key) through an index, in both the custom plan
// PL/pgSQL uses for a function's first calls and the generic plan it may
// switch to later. At this size a sequential scan costs ~400 pages against
// a few dozen for the index paths, so the planner's choice is stable; the
// scenarios are those of real use (a few followed labels, a page of label
// strips, Explore with and without filters).
func TestReleaseQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t)
	a := pgtest.CreateUser(t, e.db.Pool, "a@example.com", "password-a")
	superExec(t, e.db, withUsers(`
		INSERT INTO public.labels (id, label_name, label_url, tags)
		SELECT g, 'Label ' || g, 'https://label' || g || '.bandcamp.com', ARRAY['tag' || g % 10]
		  FROM generate_series(1, 200) g;
		-- Dates span three years up to a month ahead; 1% undated, 5% without genres.
		INSERT INTO public.releases (label_id, title, release_url, release_date, genres)
		SELECT 1 + g % 200, 'Release ' || g, 'https://r' || g || '.bandcamp.com/album/x',
		       CASE WHEN g % 101 = 0 THEN NULL ELSE current_date + 30 - (g * 7919) % 1125 END,
		       CASE WHEN g % 20 = 0 THEN '{}' ELSE ARRAY['genre' || g % 12, 'genre' || (12 + g % 7)] END
		  FROM generate_series(1, 20000) g;
		INSERT INTO public.user_follow_labels (user_id, label_id) SELECT :A, g FROM generate_series(1, 5) g;
		INSERT INTO public.user_listened_releases (user_id, release_id)
		SELECT :A, id FROM public.releases WHERE label_id <= 5 AND id % 3 = 0;
		ANALYZE;`, a, a))

	fiveLabels := "'{1,2,3,4,5}'::bigint[]"
	user := "'" + a + "'::uuid"
	type scenario struct {
		name string
		// vars maps each PL/pgSQL variable to a SQL literal.
		vars map[string]string
	}
	// customIndex names the index a scenario's custom plan must read
	// releases through. A day holds ~18 of the 20k releases: walking the
	// random-pick index would read ~10,000 entries to find nine (000013).
	customIndex := map[string]string{"today only": "releases_date_pick_idx"}
	randomVars := func(labels, genres, exclude string, days int) map[string]string {
		return map[string]string{
			"v_user": user, "v_labels": labels, "v_exclude": exclude, "v_n": "9", "v_genres": genres,
			"v_from": fmt.Sprintf("current_date - %d", days), "v_start": "0.5::float8",
		}
	}
	// Each query is explained as the role that runs it: member A unless
	// listed here. The genre scan is left to everyone but members
	// (service_role here); the kept count is read by a SECURITY DEFINER
	// function, so as its owner, and through its primary key.
	runAs := map[string]caller{"get_explore_genres": service, "private.release_genre_days_sum": owner}
	reads := map[string]string{"private.release_genre_days_sum": "release_genre_days"}
	for _, q := range []struct {
		function, query string
		scenarios       []scenario
	}{
		{"get_latest_releases", latestCutQuery, []scenario{
			{"followed labels", map[string]string{"v_labels": fiveLabels, "v_probe": "2", "v_want": "9"}},
			{"third page", map[string]string{"v_labels": fiveLabels, "v_probe": "6", "v_want": "27"}},
			{"one label", map[string]string{"v_labels": "'{7}'::bigint[]", "v_probe": "9", "v_want": "9"}},
		}},
		{"get_latest_releases", latestBoundedQuery, []scenario{
			{"followed labels", map[string]string{"v_labels": fiveLabels, "v_cut": "current_date - 20", "v_want": "9", "v_size": "9"}},
			{"third page", map[string]string{"v_labels": fiveLabels, "v_cut": "current_date - 60", "v_want": "27", "v_size": "9"}},
		}},
		{"get_latest_releases", latestUnboundedQuery, []scenario{
			{"followed labels", map[string]string{"v_labels": fiveLabels, "v_want": "9", "v_size": "9"}},
			{"one label", map[string]string{"v_labels": "'{7}'::bigint[]", "v_want": "9", "v_size": "9"}},
		}},
		{"get_latest_releases", latestPageQuery, []scenario{
			{"a page", map[string]string{"v_user": user, "v_ids": idArray(1, 9000, 1000)}},
		}},
		{"get_latest_releases_per_label", latestPerLabelQuery, []scenario{
			{"a page of strips", map[string]string{"p_label_ids": idArray(1, 20, 1), "p_limit": "5"}},
			{"one label", map[string]string{"p_label_ids": "'{42}'::bigint[]", "p_limit": "5"}},
		}},
		{"private.followed_labels_status", followedStatusQuery, []scenario{
			{"a few follows", map[string]string{"p_user": user}},
		}},
		{"get_explore_genres", exploreGenresQuery, []scenario{
			{"a week", map[string]string{"v_days": "6"}},
			{"three months", map[string]string{"v_days": "90"}},
			{"six months", map[string]string{"v_days": "180"}},
		}},
		{"private.release_genre_days_sum", genreDaysSumQuery, []scenario{
			{"a week", map[string]string{"p_days": "6"}},
			{"three months", map[string]string{"p_days": "90"}},
			{"six months", map[string]string{"p_days": "180"}},
		}},
		{"get_random_releases", randomReleasesQuery, []scenario{
			{"no filters", randomVars("NULL::bigint[]", "NULL::text[]", "'{}'::bigint[]", 90)},
			{"a genre", randomVars("NULL::bigint[]", "'{genre3}'::text[]", "'{}'::bigint[]", 90)},
			{"followed labels", randomVars(fiveLabels, "NULL::text[]", "'{}'::bigint[]", 90)},
			{"today only", randomVars("NULL::bigint[]", "NULL::text[]", "'{}'::bigint[]", 0)},
			{"after a few shuffles", randomVars("NULL::bigint[]", "NULL::text[]",
				idArray(1, 20000, 400), 365)},
			{"all time", randomVars("NULL::bigint[]", "NULL::text[]", "'{}'::bigint[]", 36500)},
		}},
	} {
		t.Run(q.function, func(t *testing.T) {
			t.Parallel()
			if q.function == "get_random_releases" {
				// Its best plan depends on the range asked for, so it must
				// never settle on one generic plan (000013).
				var cfg []string
				if err := e.db.Pool.QueryRow(ctx, "SELECT coalesce(proconfig, '{}') FROM pg_proc WHERE oid = $1::regproc",
					qualified(q.function)).Scan(&cfg); err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(cfg, "plan_cache_mode=force_custom_plan") {
					t.Errorf("get_random_releases settings %v; want plan_cache_mode=force_custom_plan", cfg)
				}
			}
			var src string
			if err := e.db.Pool.QueryRow(ctx, "SELECT prosrc FROM pg_proc WHERE oid = $1::regproc",
				qualified(q.function)).Scan(&src); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(squash(src), squash(q.query)) {
				t.Fatalf("the copied query is no longer in %s; update it from the function body", q.function)
			}
			who, relation := member("A", a), "releases"
			if c, ok := runAs[q.function]; ok {
				who = c
			}
			if r, ok := reads[q.function]; ok {
				relation = r
			}
			for _, s := range q.scenarios {
				for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
					plan := explainPrepared(t, e, who, q.query, s.vars, mode)
					var onRelation []string
					var indexed, seq bool
					plan.walk(func(n planNode) {
						if n.RelationName == relation || strings.HasPrefix(n.IndexName, relation+"_") {
							onRelation = append(onRelation, n.NodeType+" "+n.IndexName)
							indexed = indexed || strings.HasPrefix(n.IndexName, relation+"_")
							seq = seq || n.NodeType == "Seq Scan"
						}
					})
					t.Logf("%s, %s, as %s: %s read by %v", s.name, mode, who.name, relation, onRelation)
					if seq || !indexed {
						t.Errorf("%s, %s: %s read by %v; want index scans only", s.name, mode, relation, onRelation)
					}
					if want := customIndex[s.name]; want != "" && mode == "force_custom_plan" &&
						!slices.ContainsFunc(onRelation, func(n string) bool { return strings.HasSuffix(n, " "+want) }) {
						t.Errorf("%s, %s: releases read by %v; want %s", s.name, mode, onRelation, want)
					}
				}
			}
		})
	}
}

// owner is the database owner, whom SECURITY DEFINER functions run as:
// explainPrepared runs its statements on the owner's pool, with no role.
var owner = caller{name: "owner"}

// explainPrepared prepares query with its PL/pgSQL variables turned into
// parameters, as PL/pgSQL does, and returns the plan of executing it with
// the given values under plan_cache_mode mode.
func explainPrepared(t *testing.T, e *env, who caller, query string, vars map[string]string, mode string) planNode {
	t.Helper()
	ctx := context.Background()
	// A PL/pgSQL SELECT … INTO names its target; the statement planned is
	// the SELECT without it.
	query = regexp.MustCompile(`\s+INTO [vp]_[a-z_]+\b`).ReplaceAllLiteralString(query, "")
	var names []string
	for _, m := range regexp.MustCompile(`\b(v|p)_[a-z_]+\b`).FindAllString(query, -1) {
		if !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	types := map[string]string{
		"v_user": "uuid", "v_labels": "bigint[]", "v_exclude": "bigint[]", "v_genres": "text[]",
		"v_size": "integer", "v_page": "integer", "v_n": "integer", "v_from": "date", "v_start": "double precision",
		"p_label_ids": "bigint[]", "p_limit": "integer", "p_user": "uuid",
		"v_want": "bigint", "v_probe": "bigint", "v_cut": "date", "v_ids": "bigint[]", "v_days": "integer",
		"p_days": "integer",
	}
	var params, values []string
	stmt := query
	for i, name := range names {
		typ, ok := types[name]
		val, ok2 := vars[name]
		if !ok || !ok2 {
			t.Fatalf("no type or value for %s", name)
		}
		params = append(params, typ)
		values = append(values, val)
		stmt = regexp.MustCompile(`\b`+name+`\b`).ReplaceAllLiteralString(stmt, fmt.Sprintf("$%d", i+1))
	}
	// Prepared statements outlive a rolled-back transaction, so each gets
	// its own name.
	name := fmt.Sprintf("explained_%d", statements.Add(1))
	var raw string
	run := func(fn func(pgx.Tx) error) error { return e.read(ctx, who, fn) }
	if who.role == "" {
		run = func(fn func(pgx.Tx) error) error {
			return pgx.BeginTxFunc(ctx, e.db.Pool, pgx.TxOptions{AccessMode: pgx.ReadOnly}, fn)
		}
	}
	err := run(func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL plan_cache_mode = "+mode); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf("PREPARE %s (%s) AS %s", name, strings.Join(params, ", "), stmt)); err != nil {
			return err
		}
		defer func() { _, _ = tx.Exec(ctx, "DEALLOCATE "+name) }() // the transaction ends anyway
		return tx.QueryRow(ctx, fmt.Sprintf("EXPLAIN (FORMAT JSON) EXECUTE %s (%s)", name, strings.Join(values, ", "))).Scan(&raw)
	})
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &plans); err != nil || len(plans) != 1 {
		t.Fatalf("explain output %s: %v", raw, err)
	}
	return plans[0].Plan
}

// idArray is a bigint[] literal of from, from+step, … up to to.
func idArray(from, to, step int) string {
	var ids []string
	for i := from; i <= to; i += step {
		ids = append(ids, fmt.Sprint(i))
	}
	return "'{" + strings.Join(ids, ",") + "}'::bigint[]"
}

func qualified(function string) string {
	if strings.Contains(function, ".") {
		return function
	}
	return "public." + function
}
