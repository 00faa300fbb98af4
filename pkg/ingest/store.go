package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// store is the pass's SQL. Each method is one statement.
type store struct {
	pool *pgxpool.Pool
	// lockPool holds the pass lock when set (Options.LockPool).
	lockPool *pgxpool.Pool
}

// lock takes the pass lock on a connection of its own, since an advisory
// lock belongs to the session that took it. It returns ErrBusy when
// another session holds it.
func (s store) lock(ctx context.Context) (unlock func(), err error) {
	pool := s.pool
	if s.lockPool != nil {
		pool = s.lockPool
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("ingest: lock: %w", err)
	}
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&got); err != nil {
		conn.Release()
		return nil, fmt.Errorf("ingest: lock: %w", err)
	}
	if !got {
		conn.Release()
		return nil, ErrBusy
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockKey); err != nil {
			// Closing the session is the other way to drop its locks.
			conn.Conn().Close(ctx)
		}
		conn.Release()
	}, nil
}

type queued struct {
	id  int64
	url string
}

func (s store) pending(ctx context.Context) ([]queued, error) {
	rows, _ := s.pool.Query(ctx, `SELECT id, label_url FROM public.labels_to_add WHERE NOT is_processed ORDER BY id`)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (q queued, err error) {
		err = r.Scan(&q.id, &q.url)
		return q, err
	})
	if err != nil {
		return nil, fmt.Errorf("ingest: read queue: %w", err)
	}
	return out, nil
}

// labelIDs maps those of urls that are label URLs to their labels' ids.
func (s store) labelIDs(ctx context.Context, urls []string) (map[string]int64, error) {
	rows, _ := s.pool.Query(ctx, `SELECT label_url, id FROM public.labels WHERE label_url = ANY($1)`, urls)
	out := map[string]int64{}
	var u string
	var id int64
	_, err := pgx.ForEachRow(rows, []any{&u, &id}, func() error { out[u] = id; return nil })
	if err != nil {
		return nil, fmt.Errorf("ingest: read labels: %w", err)
	}
	return out, nil
}

// ensureLabel creates the label, or returns the id of the one that already
// has this URL (left as it is).
func (s store) ensureLabel(ctx context.Context, name, labelURL string, tags []string) (int64, error) {
	if tags == nil {
		tags = []string{} // the column is NOT NULL
	}
	var id int64
	err := s.pool.QueryRow(ctx, `
		WITH created AS (
		  INSERT INTO public.labels (label_name, label_url, tags) VALUES ($1, $2, $3)
		  ON CONFLICT (label_url) DO NOTHING
		  RETURNING id)
		SELECT id FROM created
		UNION ALL
		SELECT id FROM public.labels WHERE label_url = $2
		LIMIT 1`, name, labelURL, tags).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("ingest: create label %s: %w", labelURL, err)
	}
	return id, nil
}

// settle records a judgement on queue rows. A retry leaves them
// unprocessed, counting the attempt.
func (s store) settle(ctx context.Context, ids []int64, j judgement) error {
	processed := j.verdict != retry
	var labelID *int64
	if j.verdict == valid {
		labelID = &j.labelID
	}
	var reason *string
	if j.reason != "" {
		reason = &j.reason
	}
	_, err := s.pool.Exec(ctx, `
		UPDATE public.labels_to_add
		   SET attempts = attempts + 1, last_attempt_at = now(),
		       is_processed = $2, is_valid = $3, label_id = $4, error = $5,
		       processed_at = CASE WHEN $2 THEN now() END
		 WHERE id = ANY($1) AND NOT is_processed`,
		ids, processed, j.verdict == valid, labelID, reason)
	if err != nil {
		return fmt.Errorf("ingest: update queue: %w", err)
	}
	return nil
}

type label struct {
	id   int64
	url  string
	name string
	// seen is what the label's /music page last came with, for a
	// conditional request.
	seen fetch.Validators
	// crawledAt is when the label was last crawled (zero: never).
	crawledAt time.Time
}

// labels lists every label but the demo ones (invented, see pkg/demo),
// those crawled longest ago first, so a pass cut short starts next time
// where it stopped.
func (s store) labels(ctx context.Context, only []int64) ([]label, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT l.id, l.label_url, l.label_name, coalesce(v.etag, ''), coalesce(v.last_modified, ''),
		       coalesce(l.crawled_at, '-infinity')
		  FROM public.labels l
		  LEFT JOIN private.label_page_validators v ON v.label_id = l.id
		 WHERE NOT EXISTS (SELECT 1 FROM private.demo_labels d WHERE d.label_id = l.id)
		   AND ($1::bigint[] IS NULL OR l.id = ANY($1))
		 ORDER BY l.crawled_at NULLS FIRST, l.id`, only)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (l label, err error) {
		var at pgtype.Timestamptz
		err = r.Scan(&l.id, &l.url, &l.name, &l.seen.ETag, &l.seen.LastModified, &at)
		if at.Valid && at.InfinityModifier == pgtype.Finite {
			l.crawledAt = at.Time
		}
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("ingest: read labels: %w", err)
	}
	return out, nil
}

// knownRelease is a stored release; stale ones get their page read again.
type knownRelease struct {
	id    int64
	stale bool
}

type knownSet struct {
	byURL map[string]knownRelease
	byID  map[int64]knownRelease
}

// find looks a listed release up by URL, then by Bandcamp id, which
// survives a renamed slug.
func (k knownSet) find(url string, id int64) (knownRelease, bool) {
	if r, ok := k.byURL[url]; ok {
		return r, true
	}
	r, ok := k.byID[id]
	return r, ok && id != 0
}

// due lists the stored releases whose pages are read again (stale ones),
// for a label whose /music page has not changed.
func (k knownSet) due() []entry {
	var out []entry
	for u, r := range k.byURL {
		if r.stale {
			out = append(out, entry{url: u})
		}
	}
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.url, b.url) })
	return out
}

// Pre-order pages are read again every preorderRecheck, and daily from
// preorderFinal before their date: a date can move, but reading every
// pre-order daily for weeks would outgrow the request budget.
const (
	preorderRecheck = "7 days"
	preorderFinal   = 7 // days
)

// knownReleases reads, in one query, the label's releases and any of urls
// stored under another label. A release is stale while it lacks its page's
// metadata, or while it is not out yet and its page was last read a week
// ago or it comes out within a week (a pre-order can move its date).
func (s store) knownReleases(ctx context.Context, labelID int64, urls []string) (knownSet, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT r.release_url, r.id,
		       NOT r.rich OR coalesce(r.release_date >= current_date AND (
		         r.release_date < current_date + $4::int
		         OR p.read_at IS NULL OR p.read_at < now() - $3::interval), false)
		  FROM public.releases r
		  LEFT JOIN private.release_page_reads p ON p.release_id = r.id
		 WHERE r.label_id = $1 OR r.release_url = ANY($2)`, labelID, urls, preorderRecheck, preorderFinal)
	k := knownSet{byURL: map[string]knownRelease{}, byID: map[int64]knownRelease{}}
	var u string
	var r knownRelease
	_, err := pgx.ForEachRow(rows, []any{&u, &r.id, &r.stale}, func() error {
		k.byURL[u], k.byID[r.id] = r, r
		return nil
	})
	if err != nil {
		return knownSet{}, fmt.Errorf("ingest: read releases: %w", err)
	}
	return k, nil
}

// releaseRow is one release to upsert, in the JSON shape the statement reads.
type releaseRow struct {
	ID       *int64   `json:"id"`
	Title    string   `json:"title"`
	Artist   string   `json:"artist"`
	URL      string   `json:"release_url"`
	Date     *string  `json:"release_date"`
	ImageURL string   `json:"image_url"`
	Genres   []string `json:"genres"`
	Rich     bool     `json:"rich"`
}

// upsertReleases writes rows in one statement and counts rows added and
// rows whose content changed. A grid-only row never overwrites a rich
// one, an unchanged row is not touched (updated_at stays), and an existing
// row keeps its id and label. Bandcamp's item id becomes the row id unless
// another release already has it (album and track ids are separate series).
func (s store) upsertReleases(ctx context.Context, labelID int64, rows []releaseRow) (added, updated int, err error) {
	if len(rows) == 0 {
		return 0, 0, nil
	}
	data, err := json.Marshal(rows)
	if err != nil {
		return 0, 0, fmt.Errorf("ingest: encode releases: %w", err)
	}
	// Sent as text: in exec mode (DB_PREPARED_STATEMENTS=false, behind a
	// pooler) a []byte would go as bytea hex, which ::jsonb refuses.
	err = s.pool.QueryRow(ctx, `
		WITH input AS (
		  SELECT * FROM jsonb_to_recordset($2::jsonb) AS r(id bigint, title text, artist text, release_url text,
		    release_date date, image_url text, genres text[], rich boolean)
		), written AS (
		  INSERT INTO public.releases AS rel (id, label_id, title, artist, release_url, release_date, image_url, genres, rich)
		  SELECT CASE WHEN i.id IS NOT NULL AND NOT EXISTS (
		                SELECT 1 FROM public.releases x WHERE x.id = i.id AND x.release_url <> i.release_url)
		              THEN i.id ELSE nextval(pg_get_serial_sequence('public.releases', 'id')) END,
		         $1, i.title, i.artist, i.release_url, i.release_date, nullif(i.image_url, ''), i.genres, i.rich
		    FROM input i
		  ON CONFLICT (release_url) DO UPDATE
		     SET title = EXCLUDED.title, artist = EXCLUDED.artist, release_date = EXCLUDED.release_date,
		         image_url = EXCLUDED.image_url, genres = EXCLUDED.genres, rich = EXCLUDED.rich, updated_at = now()
		   WHERE (EXCLUDED.rich OR NOT rel.rich)
		     AND (rel.title, rel.artist, rel.release_date, rel.image_url, rel.genres, rel.rich)
		         IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.artist, EXCLUDED.release_date, EXCLUDED.image_url, EXCLUDED.genres, EXCLUDED.rich)
		  RETURNING xmax = 0 AS inserted)
		SELECT count(*) FILTER (WHERE inserted), count(*) FILTER (WHERE NOT inserted) FROM written`,
		labelID, string(data)).Scan(&added, &updated)
	if err != nil {
		return 0, 0, fmt.Errorf("ingest: write releases: %w", err)
	}
	return added, updated, nil
}

// pagesRead notes that the pages of these releases were read now.
func (s store) pagesRead(ctx context.Context, urls []string) error {
	if len(urls) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `
		INSERT INTO private.release_page_reads (release_id, read_at)
		SELECT id, now() FROM public.releases WHERE release_url = ANY($1)
		ON CONFLICT (release_id) DO UPDATE SET read_at = EXCLUDED.read_at`, urls)
	if err != nil {
		return fmt.Errorf("ingest: note pages read: %w", err)
	}
	return nil
}

// recentGenres reads the genres of the label's latest releases.
func (s store) recentGenres(ctx context.Context, labelID int64) ([][]string, error) {
	rows, _ := s.pool.Query(ctx, `
		SELECT genres FROM public.releases
		 WHERE label_id = $1 AND genres <> '{}'
		 ORDER BY release_date DESC NULLS LAST, id DESC
		 LIMIT 10`, labelID)
	out, err := pgx.CollectRows(rows, pgx.RowTo[[]string])
	if err != nil {
		return nil, fmt.Errorf("ingest: read genres: %w", err)
	}
	return out, nil
}

// finishLabel stamps crawled_at and refreshes the name and, when given,
// the tags; updated_at moves only when one of them changed.
func (s store) finishLabel(ctx context.Context, id int64, name string, tags []string) error {
	_, err := s.pool.Exec(ctx, `
		UPDATE public.labels
		   SET crawled_at = now(),
		       label_name = coalesce(nullif($2, ''), label_name),
		       tags = coalesce($3::text[], tags),
		       updated_at = CASE WHEN (label_name, tags) IS DISTINCT FROM (coalesce(nullif($2, ''), label_name), coalesce($3::text[], tags))
		                         THEN now() ELSE updated_at END
		 WHERE id = $1`, id, name, tags)
	if err != nil {
		return fmt.Errorf("ingest: update label: %w", err)
	}
	return nil
}

// pendingCount is how many submissions are still unprocessed.
func (s store) pendingCount(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM public.labels_to_add WHERE NOT is_processed`).Scan(&n); err != nil {
		return 0, fmt.Errorf("ingest: count queue: %w", err)
	}
	return n, nil
}
