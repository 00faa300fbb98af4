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

// crawlLabel reads one label: its /music page, then the release pages it
// needs, then stores the releases and the label's state. Each step is a
// function of its own (crawl_label.go); a step that ends the label early
// (an unusable or unavailable page) says so by returning false.
func (p *pass) crawlLabel(ctx context.Context, l label) error {
	log := p.log.With("label_id", l.id, "label", l.url)
	lv, ok, err := p.visitLabel(ctx, l, log)
	if err != nil || !ok {
		return err
	}
	entries, known, ok, err := p.labelEntries(ctx, l, lv)
	if err != nil || !ok {
		return err
	}
	b, err := p.readReleases(ctx, l, lv, entries, known)
	if err != nil {
		return err
	}
	return p.storeLabel(ctx, l, lv, b, len(entries), log)
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
