// Package bench measures the gateway against its floor: the same SQL
// the gateway generates, sent straight through pgx as prepared statements
// on connections whose role and claims were set once. Both run side by side
// in one process, in interleaved rounds, against one throwaway PostgreSQL
// holding a fixed dataset (go tool task bench:http; not part of CI).
package bench

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgcluster"
)

// Dataset is the fixed data both sides read and write.
type Dataset struct {
	// Labels and ReleasesPerLabel are generated beside the demo catalogue.
	Labels, ReleasesPerLabel int
	// Follows is how many labels the benchmark member follows.
	Follows int
}

// startDatabase starts a throwaway cluster in a temporary directory and
// returns the URL of a fresh, migrated database and a stop function.
func startDatabase(ctx context.Context, log *slog.Logger) (string, func(), error) {
	dir, err := os.MkdirTemp("", "labelbase-bench-")
	if err != nil {
		return "", nil, err
	}
	// As root the server runs as an unprivileged user, which must be able to
	// enter the directory.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: filepath.Join(dir, "postgres"), Fast: true, Log: log})
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	stop := func() {
		if err := cluster.Stop(); err != nil {
			log.Error("stopping the bench cluster", "err", err)
		}
		os.RemoveAll(dir)
	}
	admin, err := pgx.Connect(ctx, cluster.URL("postgres"))
	if err != nil {
		stop()
		return "", nil, err
	}
	_, err = admin.Exec(ctx, "CREATE DATABASE bench")
	admin.Close(ctx)
	if err != nil {
		stop()
		return "", nil, err
	}
	url := cluster.URL("bench")
	if err := migrateUp(url); err != nil {
		stop()
		return "", nil, err
	}
	return url, stop, nil
}

func migrateUp(url string) error {
	m, err := migrate.New(url)
	if err != nil {
		return err
	}
	defer m.Close()
	return m.Up()
}

// load fills the database and returns the member's user id and the ids the
// scenarios use.
func load(ctx context.Context, pool *pgxpool.Pool, d Dataset) (*fixture, error) {
	if _, err := demo.Load(ctx, pool, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		return nil, fmt.Errorf("bench: demo: %w", err)
	}
	steps := []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO public.labels (label_name, label_url, tags)
		  SELECT 'Bench label ' || g, 'https://bench' || g || '.bandcamp.com', ARRAY['jazz', 'ambient']
		    FROM generate_series(1, $1::int) g`, []any{d.Labels}},
		{`INSERT INTO public.releases (label_id, title, artist, release_url, release_date, genres)
		  SELECT l.id, 'Release ' || r, 'Artist ' || r, l.label_url || '/album/r' || r,
		         date '2026-11-01' - ((l.id * 7 + r * 13) % 700)::int, ARRAY[(ARRAY['jazz','ambient','techno'])[1 + r % 3]]
		    FROM public.labels l, generate_series(1, $1::int) r
		   WHERE l.label_url LIKE 'https://bench%'`, []any{d.ReleasesPerLabel}},
		{`INSERT INTO public.invite_codes (code, max_uses, note) VALUES ('bench-invite', 1, 'bench')`, nil},
		// The app exposes nothing to anon, so a table of the harness's own
		// stands in for a public one: no RLS, SELECT granted to anon.
		{`CREATE TABLE public.bench_items (id int PRIMARY KEY, name text NOT NULL, payload jsonb NOT NULL)`, nil},
		{`INSERT INTO public.bench_items SELECT g, 'item ' || g, jsonb_build_object('n', g, 'tags', ARRAY['a', 'b'])
		    FROM generate_series(1, 10000) g`, nil},
		{`GRANT SELECT ON public.bench_items TO anon, authenticated`, nil},
	}
	for _, s := range steps {
		if _, err := pool.Exec(ctx, s.sql, s.args...); err != nil {
			return nil, fmt.Errorf("bench: load: %w", err)
		}
	}
	hash, err := bcrypt.GenerateFromPassword([]byte("bench-password"), bcrypt.MinCost)
	if err != nil {
		return nil, err
	}
	f := &fixture{}
	if err := pool.QueryRow(ctx, `
		INSERT INTO auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', 'bench@example.com', $1, now(),
		        '{"provider":"email","providers":["email"]}', '{"invite_code":"bench-invite"}')
		RETURNING id::text`, string(hash)).Scan(&f.user); err != nil {
		return nil, fmt.Errorf("bench: member: %w", err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO public.user_follow_labels (user_id, label_id)
		SELECT $1::uuid, id FROM public.labels ORDER BY id LIMIT $2::int`, f.user, d.Follows); err != nil {
		return nil, fmt.Errorf("bench: follows: %w", err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO public.user_listened_releases (user_id, release_id)
		SELECT $1::uuid, r.id FROM public.releases r JOIN public.user_follow_labels f ON f.label_id = r.label_id AND f.user_id = $1::uuid
		 WHERE r.id % 5 = 0`, f.user); err != nil {
		return nil, fmt.Errorf("bench: listens: %w", err)
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM public.labels`).Scan(&f.label); err != nil {
		return nil, err
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM public.releases WHERE id % 5 <> 0`).Scan(&f.release); err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		return nil, err
	}
	return f, nil
}

// fixture is what the scenarios refer to.
type fixture struct {
	user    string
	label   int64
	release int64
}
