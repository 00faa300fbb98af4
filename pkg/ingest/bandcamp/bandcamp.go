// Package bandcamp reads Bandcamp's public pages: it normalises submitted
// URLs, tells account pages from fan, site and challenge pages, and pulls
// releases out of /music grids and release pages.
//
// It does no I/O. Pages are parsed with several fallbacks per field because
// Bandcamp's markup changes without notice; each field says where it comes
// from first and what stands in when that source is missing.
package bandcamp

import "errors"

// Errors that classify a fetched page. They are wrapped with detail, so
// compare with errors.Is.
var (
	// ErrChallenge marks an anti-bot interstitial: a transient state, never
	// a reason to call a URL invalid.
	ErrChallenge = errors.New("bandcamp: challenge page")
	// ErrFanPage marks a fan profile, which has a collection but no releases.
	ErrFanPage = errors.New("bandcamp: fan page, not an artist or label account")
	// ErrNotAccount marks a page that is not an artist or label account.
	ErrNotAccount = errors.New("bandcamp: not an artist or label account page")
	// ErrNotRelease marks a page that carries no release.
	ErrNotRelease = errors.New("bandcamp: not a release page")
	// ErrUnreadable marks a page that is Bandcamp's but that the parser
	// cannot read: an unknown layout, or a release page without a title or
	// a date. It calls for a parser change, not a retry.
	ErrUnreadable = errors.New("bandcamp: page not understood")
)
