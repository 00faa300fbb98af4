package ingest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
)

func TestQueueAndCrawl(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	accepted := map[string]string{ // submitted URL → label_url
		"https://northmoor.bandcamp.com":               "https://northmoor.bandcamp.com",
		"https://NorthMoor.bandcamp.com/music?from=x":  "https://northmoor.bandcamp.com",
		"https://bandcamp.com/label/hollowpine":        "https://hollowpine.bandcamp.com",
		"https://tidewater.bandcamp.com/":              "https://music.tidewater.example",
		"https://lonefern.bandcamp.com/album/whatever": "https://lonefern.bandcamp.com",
		"https://patient.bandcamp.com":                 "https://patient.bandcamp.com",
	}
	rejected := map[string]string{ // submitted URL → part of the reason
		fakebandcamp.FanURL:                "fan page",
		"https://ghostlabel.bandcamp.com":  "404",
		"https://elsewhere.bandcamp.com":   "redirects outside Bandcamp",
		"https://example.com/label/things": "not a Bandcamp URL",
		"https://bandcamp.com/label/":      "names no account",
		"https://127.0.0.1/":               "not a host name",
	}
	retried := map[string]string{ // submitted URL → part of the reason
		"https://crowded.bandcamp.com":  "HTTP 429",
		"https://guarded.bandcamp.com":  "challenge",
		"https://broken.bandcamp.com":   "HTTP 503",
		"https://dropped.bandcamp.com/": "EOF",
	}
	for _, m := range []map[string]string{accepted, rejected, retried} {
		for u := range m {
			b.submit(t, u)
		}
	}

	sum := run(t, c)

	q := b.queue(t)
	for u, want := range accepted {
		r := q[u]
		if !r.Processed || !r.Valid || r.LabelURL != want || r.Error != "" || !r.ProcessedAt || r.Attempts != 1 {
			t.Errorf("accepted %s: %+v, want label %s", u, r, want)
		}
	}
	for u, reason := range rejected {
		r := q[u]
		if !r.Processed || r.Valid || r.LabelURL != "" || !strings.Contains(r.Error, reason) || !r.ProcessedAt {
			t.Errorf("rejected %s: %+v, want reason %q", u, r, reason)
		}
	}
	for u, reason := range retried {
		r := q[u]
		if r.Processed || r.Valid || r.ProcessedAt || r.Attempts != 1 || !r.AttemptAt || !strings.Contains(r.Error, reason) {
			t.Errorf("retried %s: %+v, want it unprocessed with reason %q", u, r, reason)
		}
	}
	// The four retried submissions are the pass's network failures.
	wantSum := Summary{Checked: 16, Valid: 6, Invalid: 6, Retried: 4, LabelsCrawled: 5, ReleasesAdded: 28, QueueLeft: 4,
		NetworkFailures: 4, Requests: sum.Requests}
	if sum != wantSum {
		t.Errorf("summary = %+v, want %+v", sum, wantSum)
	}
	// Requests counts pages, not retries or redirect hops: every page the
	// fake served once, but Lone Fern's /music and the release it
	// redirects to, which are one request.
	pagesServed := map[string]bool{}
	for _, r := range b.fake.Requests() {
		pagesServed[r.Host+r.Path] = true
	}
	if sum.Requests != len(pagesServed)-1 {
		t.Errorf("%d requests counted; the fake served %d pages", sum.Requests, len(pagesServed))
	}

	// Labels: name from the page, tags derived from releases and place.
	type labelRow struct {
		Name string
		Tags []string
	}
	rows, _ := b.db.Pool.Query(context.Background(), `SELECT label_url, label_name, tags FROM public.labels WHERE crawled_at IS NOT NULL`)
	labels := map[string]labelRow{}
	for rows.Next() {
		var u string
		var l labelRow
		if err := rows.Scan(&u, &l.Name, &l.Tags); err != nil {
			t.Fatal(err)
		}
		labels[u] = l
	}
	if len(labels) != 5 {
		t.Fatalf("crawled labels = %v", labels)
	}
	if l := labels["https://northmoor.bandcamp.com"]; l.Name != "Northmoor Records" || len(l.Tags) < 3 ||
		l.Tags[0] != "electronic" || l.Tags[len(l.Tags)-1] != "hebden bridge" {
		t.Errorf("northmoor = %+v", l)
	}
	if l := labels["https://music.tidewater.example"]; l.Name != "Tidewater Audio" || !slices.Contains(l.Tags, "experimental") {
		t.Errorf("tidewater = %+v", l)
	}
	if l := labels["https://hollowpine.bandcamp.com"]; l.Name != "Hollow Pine" {
		t.Errorf("hollowpine = %+v", l)
	}

	// Releases: every grid item of every label, 16 rendered and the rest.
	for host, want := range map[string]int{"https://northmoor.bandcamp.com": 22, "https://hollowpine.bandcamp.com": 2,
		"https://music.tidewater.example": 2, "https://lonefern.bandcamp.com": 1, "https://patient.bandcamp.com": 1} {
		if n := b.count(t, `SELECT count(*) FROM public.releases r JOIN public.labels l ON l.id = r.label_id
			WHERE l.label_url = $1 AND r.rich`, host); n != want {
			t.Errorf("%s: %d rich releases, want %d", host, n, want)
		}
	}
	type releaseRow struct {
		ID                   int64
		Title, Artist, Image string
		Date                 time.Time
		Genres               []string
	}
	release := func(u string) releaseRow {
		var r releaseRow
		if err := b.db.Pool.QueryRow(context.Background(),
			`SELECT id, title, artist, image_url, release_date, genres FROM public.releases WHERE release_url = $1`, u).
			Scan(&r.ID, &r.Title, &r.Artist, &r.Image, &r.Date, &r.Genres); err != nil {
			t.Fatalf("release %s: %v", u, err)
		}
		return r
	}
	pre := release(fakebandcamp.Preorder.URL())
	if pre.ID != fakebandcamp.Preorder.ID() || !pre.Date.After(time.Now()) || pre.Image != "https://f4.bcbits.com/img/a1100000001_2.jpg" ||
		!slices.Equal(pre.Genres, []string{"electronic", "idm", "ambient"}) {
		t.Errorf("pre-order = %+v; want it stored with its future date", pre)
	}
	if r := release(fakebandcamp.NoLD.URL()); r.Artist != "Heptonstall Sound System" || r.Date.Format(time.DateOnly) != "2023-11-17" ||
		!slices.Equal(r.Genres, []string{"dub", "electronic"}) {
		t.Errorf("release without JSON-LD = %+v", r)
	}
	if r := release("https://orlavance.bandcamp.com/album/gritstone-echoes"); r.Artist != "Orla Vance" || r.ID != fakebandcamp.Hosted.ID() {
		t.Errorf("artist-hosted release = %+v", r)
	}
	if r := release("https://music.tidewater.example/album/estuary"); r.Title != "Estuary" {
		t.Errorf("custom-domain release = %+v", r)
	}
	if r := release("https://lonefern.bandcamp.com/album/first-light"); r.ID != fakebandcamp.Single.ID() {
		t.Errorf("single release = %+v", r)
	}
	if r := release("https://hollowpine.bandcamp.com/track/spruce"); r.Image != "https://f4.bcbits.com/img/a0919724444_2.jpg" {
		t.Errorf("standalone track = %+v", r)
	}
	// The app hides the pre-order until its day.
	if n := b.count(t, `SELECT count(*) FROM public.releases WHERE release_date <= current_date`); n != 27 {
		t.Errorf("%d releases out now, want 27", n)
	}

	// Traffic: nothing to the foreign host, each page once, 429s waited out.
	seen := map[string]int{}
	for _, r := range b.fake.Requests() {
		if r.Host == fakebandcamp.ForeignHost {
			t.Errorf("a request went to %s", r.Host)
		}
		seen[r.Host+r.Path]++
	}
	for page, n := range seen {
		if n > 1 && !strings.HasPrefix(page, "crowded.") && !strings.HasPrefix(page, "broken.") &&
			!strings.HasPrefix(page, "dropped.") && !strings.HasPrefix(page, "patient.") {
			t.Errorf("%s fetched %d times", page, n)
		}
	}
	if n := b.fake.Hits(fakebandcamp.RateLimitedHost); n != 4 {
		t.Errorf("rate-limited host got %d requests, want 4 (bounded retries)", n)
	}
	if waits := b.sleeper.Slept(); !slices.Contains(waits, fakebandcamp.RetryAfter) {
		t.Errorf("waits %v do not honour Retry-After %v", waits, fakebandcamp.RetryAfter)
	}

	// A custom domain is accepted once a known account has declared it.
	b.submit(t, "https://MUSIC.tidewater.example/")
	run(t, c)
	if r := b.queue(t)["https://MUSIC.tidewater.example/"]; !r.Valid || r.LabelURL != "https://music.tidewater.example" {
		t.Errorf("custom domain of a known label: %+v", r)
	}
}

type snapshot struct {
	Labels, Releases, Queue        int
	LabelsUpdated, ReleasesUpdated time.Time
	ReleasesDigest                 string
}

func (b *testBundle) snapshot(t *testing.T) snapshot {
	t.Helper()
	var s snapshot
	err := b.db.Pool.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM public.labels), (SELECT count(*) FROM public.releases),
		       (SELECT count(*) FROM public.labels_to_add WHERE is_processed),
		       (SELECT max(updated_at) FROM public.labels), (SELECT max(updated_at) FROM public.releases),
		       (SELECT md5(string_agg(r::text, ',' ORDER BY id)) FROM public.releases r)`).
		Scan(&s.Labels, &s.Releases, &s.Queue, &s.LabelsUpdated, &s.ReleasesUpdated, &s.ReleasesDigest)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSecondRunChangesNothing(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://northmoor.bandcamp.com", "https://hollowpine.bandcamp.com", "https://tidewater.bandcamp.com",
		"https://lonefern.bandcamp.com", fakebandcamp.FanURL)
	run(t, c)
	before := b.snapshot(t)
	requests := len(b.fake.Requests())

	sum := run(t, c)

	if after := b.snapshot(t); after != before {
		t.Errorf("second run changed the database:\n before %+v\n after  %+v", before, after)
	}
	// Three /music pages answer 304. Tidewater's first visit was on its
	// bandcamp.com host, whose page (is_custom_domain unset) differs from
	// the custom domain's, so that ETag does not match.
	if sum != (Summary{LabelsCrawled: 4, LabelsUnchanged: 3, Requests: 4}) {
		t.Errorf("second summary = %+v", sum)
	}
	// Only /music pages are read again (and Lone Fern's only release, which
	// its /music redirects to); the pre-order's page was read today.
	var pages []string
	for _, r := range b.fake.Requests()[requests:] {
		pages = append(pages, r.Host+r.Path)
	}
	want := []string{"northmoor.bandcamp.com/music", "hollowpine.bandcamp.com/music",
		"music.tidewater.example/music", "lonefern.bandcamp.com/music", "lonefern.bandcamp.com/album/first-light"}
	slices.Sort(pages)
	slices.Sort(want)
	if !slices.Equal(pages, want) {
		t.Errorf("second run fetched %q, want %q", pages, want)
	}
	if sum := run(t, c); sum.LabelsUnchanged != 4 {
		t.Errorf("third summary = %+v, want every label unchanged", sum)
	}
	if after := b.snapshot(t); after != before {
		t.Errorf("third run changed the database")
	}
}

func TestTransientFailuresAreRetriedNextRun(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	urls := []string{"https://crowded.bandcamp.com", "https://guarded.bandcamp.com", "https://broken.bandcamp.com", "https://dropped.bandcamp.com"}
	b.submit(t, urls...)
	// Every request of these passes fails: they are not successes.
	var sum Summary
	for range 2 {
		var err error
		sum, err = c.RunOnce(context.Background(), nil)
		if !errors.Is(err, ErrStopped) || sum.StopReason != StopAllFailed {
			t.Fatalf("pass where every request failed: %v, %+v", err, sum)
		}
		if r := b.runRow(t, sum.RunID); r.Status != RunFailed || r.Summary.StopReason != StopAllFailed || r.Summary.NetworkFailures != 4 {
			t.Errorf("recorded as %+v, want failed with stop reason all_failed", r)
		}
	}
	if sum.Retried != 4 || sum.Invalid != 0 {
		t.Errorf("second summary = %+v", sum)
	}
	for _, u := range urls {
		if r := b.queue(t)[u]; r.Processed || r.Valid || r.Attempts != 2 || r.Error == "" {
			t.Errorf("%s: %+v, want unprocessed after two attempts", u, r)
		}
	}
	// Once Bandcamp answers, the row is judged.
	b.fake.Handle(fakebandcamp.UnavailableHost, http.NotFoundHandler())
	run(t, c)
	if r := b.queue(t)["https://broken.bandcamp.com"]; !r.Processed || r.Valid || r.Attempts != 3 {
		t.Errorf("broken after recovery: %+v", r)
	}
}

func TestGoneLabelKeepsReleases(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://hollowpine.bandcamp.com")
	run(t, c)
	var crawled time.Time
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT crawled_at FROM public.labels`).Scan(&crawled); err != nil {
		t.Fatal(err)
	}
	b.fake.Handle(fakebandcamp.ArtistHost, http.NotFoundHandler())
	sum := run(t, c)
	if sum.LabelsFailed != 1 || sum.LabelsCrawled != 0 {
		t.Errorf("summary = %+v", sum)
	}
	if n := b.count(t, `SELECT count(*) FROM public.releases`); n != 2 {
		t.Errorf("%d releases left, want 2", n)
	}
	if n := b.count(t, `SELECT count(*) FROM public.labels WHERE crawled_at = $1`, crawled); n != 1 {
		t.Error("crawled_at moved although the page was not read")
	}
}

func TestUnreadableReleasePageIsFilledInLater(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://northmoor.bandcamp.com")
	b.fake.Handle(fakebandcamp.ArtistSubHost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	sum := run(t, c)
	if sum.ReleasePagesFailed != 1 || sum.ReleasesAdded != 22 {
		t.Errorf("summary = %+v", sum)
	}
	var rich bool
	var title, artist string
	var date *time.Time
	u := fakebandcamp.Hosted.URL()
	q := `SELECT rich, title, artist, release_date FROM public.releases WHERE release_url = $1`
	if err := b.db.Pool.QueryRow(context.Background(), q, u).Scan(&rich, &title, &artist, &date); err != nil {
		t.Fatal(err)
	}
	if rich || title != "Gritstone Echoes" || artist != "Orla Vance" || date != nil {
		t.Errorf("grid-only row: rich %v %q by %q on %v", rich, title, artist, date)
	}
	b.fake.Handle(fakebandcamp.ArtistSubHost, nil)
	sum = run(t, c)
	if sum.ReleasesUpdated != 1 || sum.ReleasesAdded != 0 {
		t.Errorf("second summary = %+v", sum)
	}
	if err := b.db.Pool.QueryRow(context.Background(), q, u).Scan(&rich, &title, &artist, &date); err != nil {
		t.Fatal(err)
	}
	if !rich || date == nil || date.Format(time.DateOnly) != "2024-06-14" {
		t.Errorf("after the page came back: rich %v, date %v", rich, date)
	}
}

// A Bandcamp id already used by another row must not fail the batch.
func TestTakenReleaseIDGetsANewOne(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	ctx := context.Background()
	if _, err := b.db.Pool.Exec(ctx, `
		WITH l AS (INSERT INTO public.labels (label_name, label_url) VALUES ('Other', 'https://other.bandcamp.com') RETURNING id)
		INSERT INTO public.releases (id, label_id, title, release_url) SELECT $1, id, 'Taken', 'https://other.bandcamp.com/album/taken' FROM l`,
		fakebandcamp.Single.ID()); err != nil {
		t.Fatal(err)
	}
	b.submit(t, "https://lonefern.bandcamp.com")
	run(t, c)
	var id int64
	if err := b.db.Pool.QueryRow(ctx, `SELECT id FROM public.releases WHERE release_url = $1`, fakebandcamp.Single.URL()).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id == fakebandcamp.Single.ID() {
		t.Errorf("id %d reused", id)
	}
}
