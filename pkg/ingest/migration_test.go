package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Migration 19 deletes the made-up releases the old parser stored (a label's
// /music page taken for a release) and nothing else.
func TestMigrationDropsMadeUpReleases(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.NewEmpty(t)
	m, err := migrate.New(db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Up(); err != nil {
		t.Fatal(err)
	}
	// Back to just before 19.
	if err := m.Steps(-pgtest.MigrationsFrom(t, 19)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `
		WITH l AS (INSERT INTO public.labels (label_name, label_url) VALUES ('Old Label', 'https://old.bandcamp.com') RETURNING id)
		INSERT INTO public.releases (label_id, title, release_url)
		SELECT id, t, u FROM l, (VALUES ('Old Label', 'https://old.bandcamp.com/music'),
		                                ('Real', 'https://old.bandcamp.com/album/real'),
		                                ('Real track', 'https://music.custom.example/track/x')) v(t, u)`); err != nil {
		t.Fatal(err)
	}
	if err := m.Steps(1); err != nil {
		t.Fatal(err)
	}
	rows, _ := db.Pool.Query(ctx, `SELECT title FROM public.releases ORDER BY title`)
	var titles []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		titles = append(titles, s)
	}
	if strings.Join(titles, "|") != "Real|Real track" {
		t.Errorf("releases after migration 19: %q", titles)
	}
}
