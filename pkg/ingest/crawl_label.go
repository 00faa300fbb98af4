package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
)

// The steps of crawlLabel (crawl.go), in order.

// labelVisit is a label's /music page as this pass read it.
type labelVisit struct {
	base  *url.URL
	allow []string // the hosts its pages may redirect to
	music string   // the page's URL
	name  string   // the label's name: the page's, or the stored one after a 304
	v     visit
}

// visitLabel reads the label's /music page (unless this pass already has
// it). It reports false when the label ends here: an unusable URL, a page
// gone or unreachable today (its releases are kept), or a page the parser
// does not know (recorded as a parse failure).
func (p *pass) visitLabel(ctx context.Context, l label, log *slog.Logger) (*labelVisit, bool, error) {
	base, err := url.Parse(l.url)
	if err != nil {
		log.Warn("label has an unusable URL", "err", err)
		p.sum.LabelsFailed++
		return nil, false, nil
	}
	lv := &labelVisit{base: base, allow: allowFor(base.Hostname()), music: l.url + "/music", name: l.name}
	v, ok := p.fresh[l.id]
	if !ok {
		if v, err = p.visitAccountIf(ctx, lv.music, l.seen, lv.allow...); err != nil {
			return nil, false, err
		}
	}
	lv.v = v
	switch {
	case v.unparsed:
		// Served, but not a page the parser knows: the layout changed.
		return nil, false, p.labelUnparsed(ctx, l, lv.music, v.reason)
	case v.verdict != valid:
		// A page that is gone or unreachable today is no reason to drop
		// releases members may have listened to.
		p.sum.LabelsFailed++
		log.Debug("label page unavailable; releases kept", "verdict", v.verdict.String(), "reason", v.reason)
		return nil, false, nil
	case v.page != nil && v.page.Unreadable != "":
		return nil, false, p.labelUnparsed(ctx, l, lv.music, v.page.Unreadable)
	}
	if !v.notModified {
		lv.name = v.page.Name
	}
	return lv, true, nil
}

// labelEntries is what the page lists and which of it is stored already.
// After a 304 nothing is listed, and only the stored releases due a new
// look (pre-orders, rows without their page's details) are returned. A
// page that lists nothing while releases are stored is a parse failure,
// reported as false.
func (p *pass) labelEntries(ctx context.Context, l label, lv *labelVisit) ([]entry, knownSet, bool, error) {
	var entries []entry
	if lv.v.notModified {
		p.sum.LabelsUnchanged++
	} else {
		entries = listed(lv.base, lv.v, lv.allow)
		if len(entries) == 0 {
			n, err := p.store.releaseCount(ctx, l.id)
			if err != nil {
				return nil, knownSet{}, false, err
			}
			if n > 0 {
				return nil, knownSet{}, false, p.labelUnparsed(ctx, l, lv.music, fmt.Sprintf("the page lists no releases, but %d are stored", n))
			}
		}
	}
	urls := make([]string, len(entries))
	for i, e := range entries {
		urls[i] = e.url
	}
	known, err := p.store.knownReleases(ctx, l.id, urls)
	if err != nil {
		return nil, knownSet{}, false, err
	}
	if lv.v.notModified {
		entries = known.due()
	}
	return entries, known, true, nil
}

// releaseBatch is what the release pages of one label gave.
type releaseBatch struct {
	rows         []releaseRow
	read         []string // release pages read
	pages        int
	primaryGenre string
	// unparsedURL and unparsedWhy are the first release page that did
	// not parse, and why.
	unparsedURL, unparsedWhy string
}

// readReleases reads the release pages of the entries that are new or
// stale and turns them into rows; a page that does not parse leaves a
// known row as it is.
func (p *pass) readReleases(ctx context.Context, l label, lv *labelVisit, entries []entry, known knownSet) (*releaseBatch, error) {
	b := &releaseBatch{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, err
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
			if rel, why = p.readRelease(ctx, e.url, lv.allow); why != "" {
				p.parseFailed(l, PageRelease, e.url, why)
				if b.unparsedURL == "" {
					b.unparsedURL, b.unparsedWhy = e.url, why
				}
			}
		}
		if rel == nil && isKnown {
			continue // keep the richer row we have
		}
		if rel != nil {
			b.pages++
			b.read = append(b.read, e.url)
			if b.primaryGenre == "" {
				b.primaryGenre = rel.PrimaryGenre
			}
		}
		if row, ok := newRow(e, rel, lv.name); ok {
			b.rows = append(b.rows, row)
		}
	}
	return b, nil
}

// storeLabel writes the batch and, unless the pass is stopping, the
// label's name, tags and parse state.
func (p *pass) storeLabel(ctx context.Context, l label, lv *labelVisit, b *releaseBatch, listed int, log *slog.Logger) error {
	added, updated, err := p.store.upsertReleases(ctx, l.id, b.rows)
	if err != nil {
		return err
	}
	p.sum.ReleasesAdded += added
	p.sum.ReleasesUpdated += updated
	if err := p.store.pagesRead(ctx, b.read); err != nil {
		return err
	}
	if p.stopped() {
		// Cut short: crawled_at stays, so the next pass starts here.
		log.Debug("label partly crawled; pass stopping", "listed", listed, "pages_read", b.pages, "added", added, "updated", updated)
		return nil
	}
	// Tags come from release pages, so they are refreshed only when some
	// were read: a quiet day leaves them, and updated_at, alone.
	// After a 304 there is no page, hence no location: tags stay too.
	var tags []string
	if b.pages > 0 && lv.v.page != nil {
		recent, err := p.store.recentGenres(ctx, l.id)
		if err != nil {
			return err
		}
		tags = bandcamp.LabelTags(b.primaryGenre, lv.v.page.Location, recent)
	}
	if err := p.store.finishLabel(ctx, l.id, lv.name, tags); err != nil {
		return err
	}
	if b.unparsedURL != "" {
		// The grid was read; a release page was not. The row stays
		// incomplete and is read again next pass.
		p.labelsUnparsed++
		if err := p.store.recordParseFailure(ctx, l.id, b.unparsedURL, b.unparsedWhy); err != nil {
			return err
		}
	} else if err := p.store.labelParsed(ctx, l.id, lv.v.seen); err != nil {
		return err
	}
	p.sum.LabelsCrawled++
	log.Debug("label crawled", "listed", listed, "pages_read", b.pages, "added", added, "updated", updated,
		"unchanged", lv.v.notModified)
	return nil
}
