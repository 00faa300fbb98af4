package ingest

import (
	"context"
	"fmt"

	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// Parse failures: a page Bandcamp served that the parser could not read (an
// unknown layout, a /music page listing nothing for a label that has
// releases, a release page without a title or date). Unlike a network
// failure it will not heal by itself, so each is kept per label in
// private.label_parse_failures until a later visit parses, counted in the
// pass (Summary.ParseFailures, private.ingest_runs.parse_failures) and in
// metrics (Options.OnParseFailure), and logged once per pass. The label's
// releases are left as they are.

// Kinds of page passed to Options.OnParseFailure.
const (
	PageLabel   = "label"
	PageRelease = "release"
)

// parseFailed notes a page of label l that could not be parsed.
func (p *pass) parseFailed(l label, kind, url, reason string) {
	p.sum.ParseFailures++
	if p.onParseFailure != nil {
		p.onParseFailure(kind)
	}
	if len(p.unparsed) < maxLoggedFailures {
		p.unparsed = append(p.unparsed, url+": "+reason)
	}
	p.log.Debug("page not parsed", "label", l.url, "page", kind, "url", url, "reason", reason)
}

// maxLoggedFailures bounds the examples in the pass's one warning.
const maxLoggedFailures = 5

// logParseFailures writes the pass's one line about parse failures.
func (p *pass) logParseFailures(ctx context.Context) {
	if p.sum.ParseFailures == 0 {
		return
	}
	p.log.WarnContext(ctx, "pages not parsed; those labels' releases were left as they were (see private.label_parse_failures)",
		"parse_failures", p.sum.ParseFailures, "labels", p.labelsUnparsed, "examples", p.unparsed)
}

// recordParseFailure keeps the latest parse failure of a label, keeping
// first_seen_at, and drops its validators so the next visit reads the page
// in full rather than trusting a 304 for a page that never parsed.
func (s store) recordParseFailure(ctx context.Context, labelID int64, url, reason string) error {
	_, err := s.pool.Exec(ctx, `
		WITH dropped AS (DELETE FROM private.label_page_validators WHERE label_id = $1)
		INSERT INTO private.label_parse_failures AS f (label_id, url, reason) VALUES ($1, $2, $3)
		ON CONFLICT (label_id) DO UPDATE SET url = EXCLUDED.url, reason = EXCLUDED.reason, last_seen_at = now()`,
		labelID, url, reason)
	if err != nil {
		return fmt.Errorf("ingest: record parse failure: %w", err)
	}
	return nil
}

// labelParsed clears a label's parse failure and keeps the validators its
// /music page came with (none: forgotten).
func (s store) labelParsed(ctx context.Context, labelID int64, v fetch.Validators) error {
	var etag, modified *string
	if v.ETag != "" {
		etag = &v.ETag
	}
	if v.LastModified != "" {
		modified = &v.LastModified
	}
	_, err := s.pool.Exec(ctx, `
		WITH cleared AS (DELETE FROM private.label_parse_failures WHERE label_id = $1),
		     forgotten AS (DELETE FROM private.label_page_validators
		                    WHERE label_id = $1 AND $2::text IS NULL AND $3::text IS NULL)
		INSERT INTO private.label_page_validators (label_id, etag, last_modified)
		SELECT $1, $2, $3 WHERE $2::text IS NOT NULL OR $3::text IS NOT NULL
		ON CONFLICT (label_id) DO UPDATE
		   SET etag = EXCLUDED.etag, last_modified = EXCLUDED.last_modified, updated_at = now()`,
		labelID, etag, modified)
	if err != nil {
		return fmt.Errorf("ingest: record label read: %w", err)
	}
	return nil
}

// releaseCount is how many releases a label has stored.
func (s store) releaseCount(ctx context.Context, labelID int64) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM public.releases WHERE label_id = $1`, labelID).Scan(&n); err != nil {
		return 0, fmt.Errorf("ingest: count releases: %w", err)
	}
	return n, nil
}
