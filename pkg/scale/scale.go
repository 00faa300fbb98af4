// Package scale generates the large dataset that proves the procedures stay
// fast (about 50k labels, 2M releases, 10k users, 1M follows, 5M listens) and
// reports each procedure's plan and timing at that size. It backs
// `go tool task db:large`; it is a benchmark tool, not part of CI.
package scale

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Size of the generated dataset.
type Size struct {
	Labels, ReleasesPerLabel, Users, FollowsPerUser int
	// ListenEvery: a user listens to one in ListenEvery releases of the
	// labels they follow.
	ListenEvery int
	// HiddenEvery: an admin has hidden one label in HiddenEvery (after
	// members followed it and listened to it, as happens). Every member
	// read tests rows against the hidden labels, so a dataset without any
	// measures less than a real catalogue costs: the test once rescanned
	// the hidden list per row, and nothing showed it (migration
	// 20261128060000).
	HiddenEvery int
}

// Large is the size the issue asks for.
var Large = Size{Labels: 50_000, ReleasesPerLabel: 40, Users: 10_000, FollowsPerUser: 100, ListenEvery: 8, HiddenEvery: 1000}

// step is one statement of the generator.
type step struct {
	name string
	sql  string
	args func(Size) []any
}

var steps = []step{
	{"invite", `INSERT INTO public.invite_codes (code, max_uses, note) VALUES ('scale-dataset-code', $1, 'db:large')
	            ON CONFLICT (code) DO UPDATE SET max_uses = public.invite_codes.max_uses + $1`,
		func(s Size) []any { return []any{s.Users} }},
	{"users", `INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, raw_user_meta_data)
	           SELECT gen_random_uuid(), 'authenticated', 'authenticated', 'scale-' || i || '@example.test', '', now(),
	                  '{"invite_code":"scale-dataset-code"}'
	             FROM generate_series(1, $1) AS i`,
		func(s Size) []any { return []any{s.Users} }},
	{"labels", `INSERT INTO public.labels (label_name, label_url, tags)
	            SELECT initcap(g[1 + i % 12]) || ' ' || (ARRAY['Records','Tapes','Sound','Editions'])[1 + i % 4] || ' ' || i,
	                   'https://scale-label-' || i || '.bandcamp.com',
	                   ARRAY[g[1 + i % 12], g[1 + (i / 12) % 12]]
	              FROM generate_series(1, $1) AS i,
	                   (SELECT ARRAY['ambient','techno','house','jazz','post-punk','experimental','folk','drone',
	                                 'electronic','hip-hop','dub','shoegaze'] AS g) AS genres`,
		func(s Size) []any { return []any{s.Labels} }},
	{"releases", `INSERT INTO public.releases (label_id, title, artist, release_url, release_date, image_url, genres, rich)
	              SELECT l.id, 'Release ' || n, 'Artist ' || (n % 997), l.label_url || '/album/release-' || n,
	                     current_date - (random() * 3650)::int, '/demo/covers/' || (l.id * 100 + n) || '.svg',
	                     CASE WHEN n % 20 = 0 THEN '{}'::text[] ELSE l.tags[1:1 + n % 2] END, true
	                FROM public.labels l, generate_series(1, $1) AS n
	               WHERE l.label_url LIKE 'https://scale-label-%'`,
		func(s Size) []any { return []any{s.ReleasesPerLabel} }},
	{"follows", `INSERT INTO public.user_follow_labels (user_id, label_id)
	             SELECT u.id, lo.min_id + ((u.k * 7919 + j * 499) % lo.n)
	               FROM (SELECT id, row_number() OVER (ORDER BY id) AS k FROM auth.users
	                      WHERE email LIKE 'scale-%@example.test') AS u,
	                    (SELECT min(id) AS min_id, count(*) AS n FROM public.labels
	                      WHERE label_url LIKE 'https://scale-label-%') AS lo,
	                    generate_series(1, $1) AS j
	             ON CONFLICT DO NOTHING`,
		func(s Size) []any { return []any{s.FollowsPerUser} }},
	{"listens", `INSERT INTO public.user_listened_releases (user_id, release_id)
	             SELECT f.user_id, r.id
	               FROM public.user_follow_labels f
	               JOIN public.releases r ON r.label_id = f.label_id
	              WHERE (r.id + abs(hashtext(f.user_id::text))) % $1 = 0
	             ON CONFLICT DO NOTHING`,
		func(s Size) []any { return []any{s.ListenEvery} }},
	{"hidden", `INSERT INTO private.hidden_labels (label_id)
	            SELECT l.id FROM (SELECT id, row_number() OVER (ORDER BY id) AS k FROM public.labels
	                               WHERE label_url LIKE 'https://scale-label-%') AS l
	             WHERE l.k % $1 = 0
	            ON CONFLICT DO NOTHING`,
		func(s Size) []any { return []any{s.HiddenEvery} }},
}

// growth adds releases to a dataset generated with fewer per label (for
// releases, $1 is the new count per label and $2 the old one). The new
// releases (id above $1 for listens) get listens by the same rule, one in $2.
var growth = []step{
	{"releases", `INSERT INTO public.releases (label_id, title, artist, release_url, release_date, image_url, genres, rich)
	              SELECT l.id, 'Release ' || n, 'Artist ' || (n % 997), l.label_url || '/album/release-' || n,
	                     current_date - (random() * 3650)::int, '/demo/covers/' || (l.id * 100 + n) || '.svg',
	                     CASE WHEN n % 20 = 0 THEN '{}'::text[] ELSE l.tags[1:1 + n % 2] END, true
	                FROM public.labels l, generate_series($2 + 1, $1) AS n
	               WHERE l.label_url LIKE 'https://scale-label-%'`, nil},
	{"listens", `INSERT INTO public.user_listened_releases (user_id, release_id)
	             SELECT f.user_id, r.id
	               FROM public.user_follow_labels f
	               JOIN public.releases r ON r.label_id = f.label_id
	              WHERE r.id > $1 AND (r.id + abs(hashtext(f.user_id::text))) % $2 = 0
	             ON CONFLICT DO NOTHING`, nil},
}

// Generate inserts the dataset, one statement per table, reporting each
// step's time to w. When the dataset is there with fewer releases per label
// than size asks for, it adds the missing ones (with their listens) instead,
// so `--releases` can double the catalogue of an existing dataset. Either
// way it ends with VACUUM ANALYZE, as autovacuum would after a bulk load,
// so index-only scans see an up-to-date visibility map.
func Generate(ctx context.Context, pool *pgxpool.Pool, size Size, w io.Writer) error {
	var labels, perLabel, maxID int64
	if err := pool.QueryRow(ctx, `SELECT count(*),
	        coalesce((SELECT count(*) FROM public.releases r
	                   WHERE r.label_id = (SELECT min(id) FROM public.labels
	                                        WHERE label_url LIKE 'https://scale-label-%')), 0),
	        coalesce((SELECT max(id) FROM public.releases), 0)
	   FROM public.labels WHERE label_url LIKE 'https://scale-label-%'`).Scan(&labels, &perLabel, &maxID); err != nil {
		return fmt.Errorf("scale: %w", err)
	}
	todo, args := steps, func(s step) []any {
		if s.args == nil {
			return nil
		}
		return s.args(size)
	}
	switch {
	case labels == 0:
	case perLabel < int64(size.ReleasesPerLabel):
		fmt.Fprintf(w, "the scale dataset is there (%d labels, %d releases each); adding %d releases per label\n",
			labels, perLabel, int64(size.ReleasesPerLabel)-perLabel)
		todo = growth
		args = func(s step) []any {
			switch s.name {
			case "releases":
				return []any{size.ReleasesPerLabel, perLabel}
			case "listens":
				return []any{maxID, size.ListenEvery}
			}
			return nil
		}
	default:
		fmt.Fprintf(w, "the scale dataset is already there (%d labels, %d releases each); skipping generation\n", labels, perLabel)
		return nil
	}
	for _, s := range slices.Concat(todo, []step{{name: "vacuum", sql: "VACUUM ANALYZE"}}) {
		start := time.Now()
		tag, err := pool.Exec(ctx, s.sql, args(s)...)
		if err != nil {
			return fmt.Errorf("scale: %s: %w", s.name, err)
		}
		fmt.Fprintf(w, "%-9s %10d rows  %6.1f s\n", s.name, tag.RowsAffected(), time.Since(start).Seconds())
	}
	return nil
}
