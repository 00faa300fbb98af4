package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
	"github.com/labelbase/labelbase/pkg/logtest"
)

// parseFailure reads a label's row in private.label_parse_failures.
type parseFailure struct {
	URL, Reason         string
	FirstSeen, LastSeen time.Time
	Present             bool
}

func (b *testBundle) parseFailure(t *testing.T, labelURL string) parseFailure {
	t.Helper()
	var f parseFailure
	err := b.db.Pool.QueryRow(context.Background(), `
		SELECT f.url, f.reason, f.first_seen_at, f.last_seen_at FROM private.label_parse_failures f
		  JOIN public.labels l ON l.id = f.label_id WHERE l.label_url = $1`, labelURL).
		Scan(&f.URL, &f.Reason, &f.FirstSeen, &f.LastSeen)
	f.Present = err == nil
	return f
}

// kinds collects what Options.OnParseFailure is told.
type kinds struct {
	mu  sync.Mutex
	got []string
}

func (k *kinds) add(kind string) { k.mu.Lock(); k.got = append(k.got, kind); k.mu.Unlock() }

func (k *kinds) take() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := k.got
	k.got = nil
	return out
}

func TestIndexPageLabelListsEveryRelease(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://"+fakebandcamp.IndexHost)
	sum := run(t, c)
	if sum.Valid != 1 || sum.LabelsCrawled != 1 || sum.ReleasesAdded != fakebandcamp.IndexReleases || sum.ParseFailures != 0 {
		t.Fatalf("summary %+v; want all %d releases of the index page", sum, fakebandcamp.IndexReleases)
	}
	label := "https://" + fakebandcamp.IndexHost
	if n := b.count(t, `SELECT count(*) FROM public.releases r JOIN public.labels l ON l.id = r.label_id
		WHERE l.label_url = $1 AND r.rich AND r.release_date IS NOT NULL AND r.id BETWEEN 3100000500 AND 3100000599`, label); n != fakebandcamp.IndexReleases {
		t.Errorf("%d rich releases with their Bandcamp ids and dates, want %d", n, fakebandcamp.IndexReleases)
	}
	var date time.Time
	var artist string
	var genres []string
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT release_date, artist, genres FROM public.releases WHERE release_url = $1`,
		label+"/album/wash-002").Scan(&date, &artist, &genres); err != nil {
		t.Fatal(err)
	}
	if date.Format(time.DateOnly) != "2025-05-06" || artist != "Fen Tiger" || !slices.Equal(genres, []string{"hip-hop/rap", "boom bap"}) {
		t.Errorf("wash-002: %s by %q, genres %q", date.Format(time.DateOnly), artist, genres)
	}
	// The primary genre's slug (hip-hop-rap) and the tag text are one tag.
	var tags []string
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT tags FROM public.labels WHERE label_url = $1`, label).Scan(&tags); err != nil {
		t.Fatal(err)
	}
	if len(tags) == 0 || tags[0] != "hip-hop/rap" || slices.Contains(tags, "hip-hop-rap") {
		t.Errorf("label tags %q", tags)
	}
	if n := b.count(t, `SELECT count(*) FROM public.releases WHERE title = 'Wash Lane Records'`); n != 0 {
		t.Error("a release titled with the label's name was made up")
	}
}

// A /music page whose only data-tralbum is the stub is an account without
// releases when the label has none, and a parse failure when it has some.
// An unknown layout is one too. Either way nothing is deleted, and a later
// good page clears the failure.
func TestUnreadableLabelPageKeepsReleases(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	seen := &kinds{}
	logs := &logtest.Buffer{}
	c := b.crawlerWith(t, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Options{OnParseFailure: seen.add})
	label := "https://" + fakebandcamp.StubHost

	b.submit(t, label)
	sum := run(t, c)
	if sum.Valid != 1 || sum.LabelsCrawled != 1 || sum.ReleasesAdded != 0 || sum.ParseFailures != 0 || b.parseFailure(t, label).Present {
		t.Errorf("new label with an empty page: %+v", sum)
	}
	if n := b.count(t, `SELECT count(*) FROM public.releases WHERE title = 'Empty Reel'`); n != 0 {
		t.Error("the stub data-tralbum became a release titled with the account's name")
	}

	b.fake.SetLayout(fakebandcamp.StubHost, fakebandcamp.LayoutGrid)
	if sum := run(t, c); sum.ReleasesAdded != 1 {
		t.Fatalf("grid: %+v", sum)
	}
	before := b.snapshot(t)
	var crawled time.Time
	if err := b.db.Pool.QueryRow(context.Background(), `SELECT crawled_at FROM public.labels WHERE label_url = $1`, label).Scan(&crawled); err != nil {
		t.Fatal(err)
	}
	logs.Take()

	for i, layout := range []string{fakebandcamp.LayoutStub, fakebandcamp.LayoutUnknown} {
		b.fake.SetLayout(fakebandcamp.StubHost, layout)
		sum, err := c.RunOnce(context.Background(), nil)
		// The pass's only request failed to parse: not a success either.
		if !errors.Is(err, ErrStopped) || sum.StopReason != StopAllFailed || sum.ParseFailures != 1 || sum.LabelsFailed != 1 {
			t.Errorf("%s: %v, %+v", layout, err, sum)
		}
		if r := b.runRow(t, sum.RunID); r.Status != RunFailed || r.Summary.ParseFailures != 1 || r.Summary.NetworkFailures != 0 {
			t.Errorf("%s: recorded %+v", layout, r)
		}
		if after := b.snapshot(t); after != before {
			t.Errorf("%s: the database changed:\n before %+v\n after  %+v", layout, before, after)
		}
		if n := b.count(t, `SELECT count(*) FROM public.labels WHERE crawled_at = $1`, crawled); n != 1 {
			t.Errorf("%s: crawled_at moved", layout)
		}
		f := b.parseFailure(t, label)
		wantReason := map[string]string{fakebandcamp.LayoutStub: "lists no releases, but 1 are stored",
			fakebandcamp.LayoutUnknown: "unknown layout"}[layout]
		if !f.Present || f.URL != label+"/music" || !strings.Contains(f.Reason, wantReason) || (i > 0 && !f.LastSeen.After(f.FirstSeen)) {
			t.Errorf("%s: failure %+v, want reason %q and first_seen kept", layout, f, wantReason)
		}
		if got := seen.take(); !slices.Equal(got, []string{PageLabel}) {
			t.Errorf("%s: metrics told %q", layout, got)
		}
		var warns []string
		for _, l := range logs.Take() {
			if strings.Contains(l, "pages not parsed") {
				warns = append(warns, l)
			}
		}
		if len(warns) != 1 || !strings.Contains(warns[0], wantReason) {
			t.Errorf("%s: want one warning naming the reason, got %q", layout, warns)
		}
	}

	b.fake.SetLayout(fakebandcamp.StubHost, fakebandcamp.LayoutGrid)
	if sum := run(t, c); sum.ParseFailures != 0 || sum.LabelsCrawled != 1 {
		t.Errorf("back to the grid: %+v", sum)
	}
	if b.parseFailure(t, label).Present {
		t.Error("a good parse did not clear the failure")
	}
}

// undatedPage is a release page with a title and no date anywhere.
const undatedPage = `<!DOCTYPE html><html><head><meta property="og:type" content="album">
<script src="/x.js" data-tralbum="{&quot;id&quot;:3100000005,&quot;item_type&quot;:&quot;album&quot;,&quot;current&quot;:{&quot;title&quot;:&quot;Gritstone Echoes&quot;}}"
 data-band="{&quot;id&quot;:2100000005,&quot;name&quot;:&quot;Orla Vance&quot;}"></script></head><body></body></html>`

func TestUndatedReleasePageIsAParseFailure(t *testing.T) {
	t.Parallel()
	_, b := setup(t)
	seen := &kinds{}
	c := b.crawlerWith(t, testLogger(t), Options{OnParseFailure: seen.add})
	b.fake.Handle(fakebandcamp.ArtistSubHost, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, undatedPage)
	}))
	b.submit(t, "https://"+fakebandcamp.LabelHost)
	sum := run(t, c)
	if sum.ReleasesAdded != 22 || sum.ParseFailures != 1 || sum.NetworkFailures != 0 || sum.ReleasePagesFailed != 1 || sum.LabelsCrawled != 1 {
		t.Errorf("summary %+v", sum)
	}
	f := b.parseFailure(t, "https://"+fakebandcamp.LabelHost)
	if !f.Present || f.URL != fakebandcamp.Hosted.URL() || !strings.Contains(f.Reason, "no release date") {
		t.Errorf("failure %+v", f)
	}
	if got := seen.take(); !slices.Equal(got, []string{PageRelease}) {
		t.Errorf("metrics told %q", got)
	}
	var rich bool
	q := `SELECT rich FROM public.releases WHERE release_url = $1`
	if err := b.db.Pool.QueryRow(context.Background(), q, fakebandcamp.Hosted.URL()).Scan(&rich); err != nil || rich {
		t.Errorf("the undated release: rich %v, %v; want the grid's row, read again next pass", rich, err)
	}
	b.fake.Handle(fakebandcamp.ArtistSubHost, nil)
	if sum := run(t, c); sum.ReleasesUpdated != 1 || sum.ParseFailures != 0 {
		t.Errorf("page fixed: %+v", sum)
	}
	if err := b.db.Pool.QueryRow(context.Background(), q, fakebandcamp.Hosted.URL()).Scan(&rich); err != nil || !rich {
		t.Errorf("after the fix: rich %v, %v", rich, err)
	}
	if b.parseFailure(t, "https://"+fakebandcamp.LabelHost).Present {
		t.Error("failure not cleared")
	}
}

// An unchanged label costs one request a day: the /music page, asked for
// conditionally and answered 304; its releases stay as they are.
func TestUnchangedLabelCostsOneRequest(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://"+fakebandcamp.ArtistHost)
	run(t, c)
	before := b.snapshot(t)
	requests := len(b.fake.Requests())

	sum := run(t, c)
	if sum != (Summary{LabelsCrawled: 1, LabelsUnchanged: 1, Requests: 1}) {
		t.Errorf("second pass %+v", sum)
	}
	if got := b.fake.Requests()[requests:]; len(got) != 1 || got[0].Path != "/music" || b.fake.NotModified() != 1 {
		t.Errorf("second pass sent %v (%d answered 304)", got, b.fake.NotModified())
	}
	if after := b.snapshot(t); after != before {
		t.Errorf("a 304 changed the database:\n before %+v\n after  %+v", before, after)
	}

	// A changed page is read in full: a new layout serves a new ETag.
	b.fake.SetLayout(fakebandcamp.ArtistHost, fakebandcamp.LayoutIndex)
	if sum := run(t, c); sum.LabelsUnchanged != 0 || sum.LabelsCrawled != 1 || sum.Requests != 1 {
		t.Errorf("changed page: %+v", sum)
	}

	// A scheduled pass skips labels read within RecrawlAfter.
	requests = len(b.fake.Requests())
	sched := b.crawlerWith(t, testLogger(t), Options{RecrawlAfter: time.Hour})
	if sum := run(t, sched); sum.LabelsCrawled != 0 || sum.Requests != 0 || len(b.fake.Requests()) != requests {
		t.Errorf("pass within RecrawlAfter: %+v", sum)
	}
}

// After a parse failure the validators are dropped, so a 304 cannot hide
// a page that never parsed.
func TestParseFailureDropsValidators(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://"+fakebandcamp.ArtistHost)
	run(t, c)
	if n := b.count(t, `SELECT count(*) FROM private.label_page_validators`); n != 1 {
		t.Fatalf("%d validators stored, want 1", n)
	}
	b.fake.SetLayout(fakebandcamp.ArtistHost, fakebandcamp.LayoutUnknown)
	_, _ = c.RunOnce(context.Background(), nil) // the pass's outcome is not what this test is about
	if n := b.count(t, `SELECT count(*) FROM private.label_page_validators`); n != 0 {
		t.Errorf("%d validators kept after a parse failure", n)
	}
	b.fake.SetLayout(fakebandcamp.ArtistHost, "")
	if sum := run(t, c); sum.LabelsUnchanged != 0 || sum.LabelsCrawled != 1 || b.parseFailure(t, "https://"+fakebandcamp.ArtistHost).Present {
		t.Errorf("after the layout came back: %+v", sum)
	}
}

// A scheduled pass reads a label again once RecrawlAfter has passed since
// its last crawl, and not before.
func TestRecrawlAfter(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	b.submit(t, "https://"+fakebandcamp.ArtistHost, "https://"+fakebandcamp.SingleHost)
	run(t, c)
	ctx := context.Background()
	for host, age := range map[string]string{fakebandcamp.ArtistHost: "21 hours", fakebandcamp.SingleHost: "19 hours"} {
		if _, err := b.db.Pool.Exec(ctx, `UPDATE public.labels SET crawled_at = now() - $2::interval WHERE label_url = $1`,
			"https://"+host, age); err != nil {
			t.Fatal(err)
		}
	}
	requests := len(b.fake.Requests())
	sched := b.crawlerWith(t, testLogger(t), Options{RecrawlAfter: 20 * time.Hour})
	if sum := run(t, sched); sum.LabelsCrawled != 1 {
		t.Errorf("summary %+v, want only the label crawled 21 hours ago", sum)
	}
	for _, r := range b.fake.Requests()[requests:] {
		if r.Host != fakebandcamp.ArtistHost {
			t.Errorf("requested %s%s, crawled 19 hours ago", r.Host, r.Path)
		}
	}
}

// A pre-order's page is read again a week after it was last read, and
// daily in the week before its date; not every day until it comes out.
func TestPreorderPagesAreReadWeekly(t *testing.T) {
	t.Parallel()
	c, b := setup(t)
	ctx := context.Background()
	b.submit(t, "https://"+fakebandcamp.LabelHost)
	run(t, c)
	preorderRead := func() bool {
		requests := len(b.fake.Requests())
		run(t, c)
		for _, r := range b.fake.Requests()[requests:] {
			if "https://"+r.Host+r.Path == fakebandcamp.Preorder.URL() {
				return true
			}
		}
		return false
	}
	if preorderRead() {
		t.Error("the pre-order's page was read again the day it was read")
	}
	if _, err := b.db.Pool.Exec(ctx, `UPDATE private.release_page_reads SET read_at = now() - interval '8 days'
		WHERE release_id = $1`, fakebandcamp.Preorder.ID()); err != nil {
		t.Fatal(err)
	}
	if !preorderRead() {
		t.Error("the pre-order's page was not read a week after the last read")
	}
	if preorderRead() {
		t.Error("read again the next day, six weeks before its date")
	}
	// Its date moved to three days from now: read daily until then.
	if _, err := b.db.Pool.Exec(ctx, `UPDATE public.releases SET release_date = current_date + 3 WHERE id = $1`,
		fakebandcamp.Preorder.ID()); err != nil {
		t.Fatal(err)
	}
	if !preorderRead() {
		t.Error("a pre-order due within a week was not read")
	}
}
