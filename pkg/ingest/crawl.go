package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// crawlLabels reads every label's /music page and stores what is new.
func (p *pass) crawlLabels(ctx context.Context) error {
	labels, err := p.store.labels(ctx)
	if err != nil {
		return err
	}
	for i, l := range labels {
		if p.stopped() {
			break
		}
		if err := p.crawlLabel(ctx, l); err != nil {
			return err
		}
		p.progress(Step{Stage: StageLabels, Done: i + 1, Total: len(labels), Item: l.url})
	}
	return nil
}

// entry is one release a /music page lists, with its page if already read.
type entry struct {
	url     string
	item    bandcamp.Item
	release *bandcamp.Release
}

func (p *pass) crawlLabel(ctx context.Context, l label) error {
	log := p.log.With("label_id", l.id, "label", l.url)
	base, err := url.Parse(l.url)
	if err != nil {
		log.Warn("label has an unusable URL", "err", err)
		p.sum.LabelsFailed++
		return nil
	}
	allow := allowFor(base.Hostname())
	v, ok := p.fresh[l.id]
	if !ok {
		if v, err = p.visitAccount(ctx, l.url+"/music", allow...); err != nil {
			return err
		}
	}
	if v.verdict != valid {
		// A page that is gone or unreachable today is no reason to drop
		// releases members may have listened to.
		p.sum.LabelsFailed++
		log.Debug("label page unavailable; releases kept", "verdict", v.verdict.String(), "reason", v.reason)
		return nil
	}
	entries := listed(base, v, allow)
	urls := make([]string, len(entries))
	for i, e := range entries {
		urls[i] = e.url
	}
	known, err := p.store.knownReleases(ctx, l.id, urls)
	if err != nil {
		return err
	}
	var rows []releaseRow
	var primaryGenre string
	pages := 0
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.stopped() {
			break
		}
		k, isKnown := known.find(e.url, e.item.ID)
		if isKnown && !k.stale {
			continue
		}
		rel := e.release
		if rel == nil {
			rel = p.readRelease(ctx, e.url, allow)
		}
		if rel == nil && isKnown {
			continue // keep the richer row we have
		}
		if rel != nil {
			pages++
			if primaryGenre == "" {
				primaryGenre = rel.PrimaryGenre
			}
		}
		if row, ok := newRow(e, rel, v.page.Name); ok {
			rows = append(rows, row)
		}
	}
	added, updated, err := p.store.upsertReleases(ctx, l.id, rows)
	if err != nil {
		return err
	}
	p.sum.ReleasesAdded += added
	p.sum.ReleasesUpdated += updated
	if p.stopped() {
		// Cut short: crawled_at stays, so the next pass starts here.
		log.Debug("label partly crawled; pass stopping", "listed", len(entries), "pages_read", pages, "added", added, "updated", updated)
		return nil
	}
	// Tags come from release pages, so they are refreshed only when some
	// were read: a quiet day leaves them, and updated_at, alone.
	var tags []string
	if pages > 0 {
		recent, err := p.store.recentGenres(ctx, l.id)
		if err != nil {
			return err
		}
		tags = bandcamp.LabelTags(primaryGenre, v.page.Location, recent)
	}
	if err := p.store.finishLabel(ctx, l.id, v.page.Name, tags); err != nil {
		return err
	}
	p.sum.LabelsCrawled++
	log.Debug("label crawled", "listed", len(entries), "pages_read", pages, "added", added, "updated", updated)
	return nil
}

// listed returns the releases a visited /music page names, with canonical
// URLs. Relative links resolve against the label's URL, so a custom-domain
// label's releases get custom-domain URLs however the page was reached.
// Links to hosts outside Bandcamp and the label's own domain are dropped.
func listed(base *url.URL, v visit, allow []string) []entry {
	var out []entry
	seen := map[string]bool{}
	add := func(href string, it bandcamp.Item, rel *bandcamp.Release) {
		u, err := bandcamp.NormaliseURL(href, base)
		if err != nil || seen[u.String()] || !(bandcamp.IsBandcampHost(u.Hostname()) || slices.Contains(allow, u.Hostname())) {
			return
		}
		seen[u.String()] = true
		out = append(out, entry{url: u.String(), item: it, release: rel})
	}
	for _, it := range v.page.Items {
		add(it.Href, it, nil)
	}
	if r := v.page.Release; r != nil {
		// /music redirected to the only release: the page is already here.
		href := v.url.String()
		if !bandcamp.IsBandcampHost(base.Hostname()) {
			href = v.url.Path
		}
		add(href, bandcamp.Item{Type: r.Type, ID: r.ID, Title: r.Title, Artist: r.Artist, ImageURL: r.ImageURL}, r)
	}
	return out
}

// readRelease fetches and parses one release page, or returns nil.
func (p *pass) readRelease(ctx context.Context, u string, allow []string) *bandcamp.Release {
	resp, err := p.client.Get(ctx, u, allow...)
	isRefused := errors.Is(err, fetch.ErrBlocked) ||
		(err == nil && (resp.Status == http.StatusTooManyRequests || bandcamp.IsChallenge(resp.Body)))
	if err == nil && resp.Status == http.StatusOK {
		rel, perr := bandcamp.ParseRelease(resp.Body)
		if perr == nil {
			p.observe(answered, u, "")
			return rel
		}
		err = perr
		isRefused = isRefused || errors.Is(perr, bandcamp.ErrChallenge)
	}
	if ctx.Err() == nil && !errors.Is(err, fetch.ErrDisallowed) {
		reason := "challenge page"
		switch {
		case err == nil:
			reason = fmt.Sprintf("HTTP %d", resp.Status)
		case !errors.Is(err, bandcamp.ErrChallenge):
			reason = err.Error()
		}
		p.observe(outcomeOf(isRefused, err), u, reason)
	}
	p.sum.ReleasePagesFailed++
	attrs := []any{"url", u, "err", err}
	if resp != nil {
		attrs = append(attrs, "status", resp.Status)
	}
	p.log.Debug("release page unreadable", attrs...)
	return nil
}

// newRow merges a grid entry with its release page, the page winning.
func newRow(e entry, rel *bandcamp.Release, account string) (releaseRow, bool) {
	r := releaseRow{URL: e.url, Title: e.item.Title, Artist: e.item.Artist, ImageURL: e.item.ImageURL, Genres: []string{}}
	if e.item.ID > 0 {
		r.ID = &e.item.ID
	}
	if rel != nil {
		r.Rich = true
		if rel.ID > 0 {
			r.ID = &rel.ID
		}
		if rel.Title != "" {
			r.Title = rel.Title
		}
		if rel.Artist != "" {
			r.Artist = rel.Artist
		}
		if rel.ImageURL != "" {
			r.ImageURL = rel.ImageURL
		}
		if rel.Genres != nil {
			r.Genres = rel.Genres
		}
		if !rel.Date.IsZero() {
			d := rel.Date.Format("2006-01-02")
			r.Date = &d
		}
	}
	if r.Artist == "" {
		r.Artist = account
	}
	return r, r.Title != ""
}
