package ingest

import (
	"context"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/migrate"
	"github.com/labelbase/labelbase/pkg/pgtest"
	sqlfiles "github.com/labelbase/labelbase/sql"
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
	ups, err := fs.Glob(sqlfiles.Migrations, "migrations/*.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	later := 0
	for _, f := range ups {
		n, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f, "migrations/"), "_", 2)[0])
		if n >= 19 {
			later++
		}
	}
	if err := m.Steps(-later); err != nil {
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
