package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// crawlLabels reads every label's /music page and stores what is new.
func (p *pass) crawlLabels(ctx context.Context) error {
	labels, err := p.store.labels(ctx, p.scope.labels)
	if err != nil {
		return err
	}
	for i, l := range labels {
		if p.stopped() {
			break
		}
		// Judged when the label's turn comes, not when the pass starts: a
		// pass takes hours, and a label read at 17:00 yesterday is due
		// when today's pass reaches it, not at 03:00.
		if !p.scope.force && p.recrawlAfter > 0 && time.Since(l.crawledAt) < p.recrawlAfter {
			p.progress(Step{Stage: StageLabels, Done: i + 1, Total: len(labels), Item: l.url})
			continue
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
	music := l.url + "/music"
	v, ok := p.fresh[l.id]
	if !ok {
		if v, err = p.visitAccountIf(ctx, music, l.seen, allow...); err != nil {
			return err
		}
	}
	if v.unparsed {
		// Served, but not a page the parser knows: the layout changed.
		return p.labelUnparsed(ctx, l, music, v.reason)
	}
	if v.verdict != valid {
		// A page that is gone or unreachable today is no reason to drop
		// releases members may have listened to.
		p.sum.LabelsFailed++
		log.Debug("label page unavailable; releases kept", "verdict", v.verdict.String(), "reason", v.reason)
		return nil
	}
	if v.page != nil && v.page.Unreadable != "" {
		return p.labelUnparsed(ctx, l, music, v.page.Unreadable)
	}
	var entries []entry
	name := l.name
	if v.notModified {
		// Unchanged since the last read: only the releases due a new look
		// (pre-orders, rows without their page's details) are read.
		p.sum.LabelsUnchanged++
	} else {
		name = v.page.Name
		entries = listed(base, v, allow)
		if len(entries) == 0 {
			n, err := p.store.releaseCount(ctx, l.id)
			if err != nil {
				return err
			}
			if n > 0 {
				return p.labelUnparsed(ctx, l, music, fmt.Sprintf("the page lists no releases, but %d are stored", n))
			}
		}
	}
	urls := make([]string, len(entries))
	for i, e := range entries {
		urls[i] = e.url
	}
	known, err := p.store.knownReleases(ctx, l.id, urls)
	if err != nil {
		return err
	}
	if v.notModified {
		entries = known.due()
	}
	var rows []releaseRow
	var read []string // release pages read
	// unparsedURL and unparsedWhy are the first release page that did
	// not parse, and why.
	var primaryGenre, unparsedURL, unparsedWhy string
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
			var why string
			if rel, why = p.readRelease(ctx, e.url, allow); why != "" {
				p.parseFailed(l, PageRelease, e.url, why)
				if unparsedURL == "" {
					unparsedURL, unparsedWhy = e.url, why
				}
			}
		}
		if rel == nil && isKnown {
			continue // keep the richer row we have
		}
		if rel != nil {
			pages++
			read = append(read, e.url)
			if primaryGenre == "" {
				primaryGenre = rel.PrimaryGenre
			}
		}
		if row, ok := newRow(e, rel, name); ok {
			rows = append(rows, row)
		}
	}
	added, updated, err := p.store.upsertReleases(ctx, l.id, rows)
	if err != nil {
		return err
	}
	p.sum.ReleasesAdded += added
	p.sum.ReleasesUpdated += updated
	if err := p.store.pagesRead(ctx, read); err != nil {
		return err
	}
	if p.stopped() {
		// Cut short: crawled_at stays, so the next pass starts here.
		log.Debug("label partly crawled; pass stopping", "listed", len(entries), "pages_read", pages, "added", added, "updated", updated)
		return nil
	}
	// Tags come from release pages, so they are refreshed only when some
	// were read: a quiet day leaves them, and updated_at, alone.
	// After a 304 there is no page, hence no location: tags stay too.
	var tags []string
	if pages > 0 && v.page != nil {
		recent, err := p.store.recentGenres(ctx, l.id)
		if err != nil {
			return err
		}
		tags = bandcamp.LabelTags(primaryGenre, v.page.Location, recent)
	}
	if err := p.store.finishLabel(ctx, l.id, name, tags); err != nil {
		return err
	}
	if unparsedURL != "" {
		// The grid was read; a release page was not. The row stays
		// incomplete and is read again next pass.
		p.labelsUnparsed++
		if err := p.store.recordParseFailure(ctx, l.id, unparsedURL, unparsedWhy); err != nil {
			return err
		}
	} else if err := p.store.labelParsed(ctx, l.id, v.seen); err != nil {
		return err
	}
	p.sum.LabelsCrawled++
	log.Debug("label crawled", "listed", len(entries), "pages_read", pages, "added", added, "updated", updated,
		"unchanged", v.notModified)
	return nil
}

// labelUnparsed records that a label's /music page could not be parsed,
// leaving its releases, name, tags and crawled_at as they were.
func (p *pass) labelUnparsed(ctx context.Context, l label, page, reason string) error {
	p.parseFailed(l, PageLabel, page, reason)
	p.labelsUnparsed++
	p.sum.LabelsFailed++
	return p.store.recordParseFailure(ctx, l.id, page, reason)
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
		if !strings.HasPrefix(u.Path, "/album/") && !strings.HasPrefix(u.Path, "/track/") {
			// Only a release page is a release: never the account's own
			// page taken for one.
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

// readRelease fetches and parses one release page. It returns nil when
// the page could not be had, and with it why when the page was served but
// could not be parsed (a parse failure, as opposed to a network one).
func (p *pass) readRelease(ctx context.Context, u string, allow []string) (*bandcamp.Release, string) {
	resp, err := p.client.Get(ctx, u, allow...)
	isRefused := errors.Is(err, fetch.ErrBlocked) ||
		(err == nil && (resp.Status == http.StatusTooManyRequests || bandcamp.IsChallenge(resp.Body)))
	sent := ctx.Err() == nil && !errors.Is(err, fetch.ErrDisallowed)
	if sent {
		p.sum.Requests++
	}
	unparsed := ""
	if err == nil && resp.Status == http.StatusOK {
		rel, perr := bandcamp.ParseRelease(resp.Body)
		if perr == nil {
			p.observe(answered, u, "")
			return rel, ""
		}
		err = perr
		isRefused = isRefused || errors.Is(perr, bandcamp.ErrChallenge)
		if !isRefused {
			unparsed = perr.Error()
		}
	}
	if sent {
		reason := "challenge page"
		switch {
		case err == nil:
			reason = fmt.Sprintf("HTTP %d", resp.Status)
		case !errors.Is(err, bandcamp.ErrChallenge):
			reason = err.Error()
		}
		p.observe(outcomeOf(isRefused, err), u, reason)
		gone := err == nil && (resp.Status == http.StatusNotFound || resp.Status == http.StatusGone)
		if unparsed == "" && !gone {
			p.sum.NetworkFailures++
		}
	}
	p.sum.ReleasePagesFailed++
	attrs := []any{"url", u, "err", err}
	if resp != nil {
		attrs = append(attrs, "status", resp.Status)
	}
	p.log.Debug("release page unreadable", attrs...)
	return nil, unparsed
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
