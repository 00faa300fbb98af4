package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// verdict is how a fetched account URL was judged.
type verdict int

const (
	valid verdict = iota
	invalid
	// retry covers everything that says nothing about the URL itself:
	// rate limits, server errors, challenge pages, network failures.
	retry
)

func (v verdict) String() string {
	return [...]string{"valid", "invalid", "retry"}[v]
}

// visit is a fetched account page and its verdict.
type visit struct {
	verdict verdict
	reason  string
	page    *bandcamp.AccountPage
	// url is where the page was found, after redirects.
	url *url.URL
	// refused: Bandcamp pushed back (a challenge page, a 429 left after
	// the back-off, a site pause), as opposed to answering.
	refused bool
	// unreachable: no reply at all (see fetch.Unreachable).
	unreachable bool
	// sent: a request was made (or would have been, but for a pause).
	sent bool
	// unparsed: the page was served (HTTP 200) but is not an account page
	// the parser knows; reason says why. For a known label that is a parse
	// failure, not a verdict on the URL.
	unparsed bool
	// notModified: the page answered a conditional request with 304.
	notModified bool
	// seen are the validators the page came with.
	seen fetch.Validators
}

// visitAccount fetches and judges an account page. Its error is only ever
// the context's: everything else is a verdict.
func (p *pass) visitAccount(ctx context.Context, rawURL string, allow ...string) (visit, error) {
	return p.visitAccountIf(ctx, rawURL, fetch.Validators{}, allow...)
}

// visitAccountIf is visitAccount as a conditional request (see
// fetch.Client.GetIf).
func (p *pass) visitAccountIf(ctx context.Context, rawURL string, seen fetch.Validators, allow ...string) (visit, error) {
	v, err := p.fetchAccount(ctx, rawURL, seen, allow)
	if err == nil && v.sent {
		p.sum.Requests++
		if v.verdict == retry {
			p.sum.NetworkFailures++
		}
		o := answered
		switch {
		case v.refused:
			o = refused
		case v.unreachable:
			o = unreachable
		}
		p.observe(o, rawURL, v.reason)
	}
	return v, err
}

func (p *pass) fetchAccount(ctx context.Context, rawURL string, seen fetch.Validators, allow []string) (visit, error) {
	resp, err := p.client.GetIf(ctx, rawURL, seen, allow...)
	switch {
	case ctx.Err() != nil:
		return visit{}, ctx.Err()
	case errors.Is(err, fetch.ErrDisallowed):
		return visit{verdict: invalid, reason: err.Error()}, nil
	case errors.Is(err, fetch.ErrBlocked):
		return visit{verdict: retry, reason: err.Error(), refused: true, sent: true}, nil
	case err != nil:
		return visit{verdict: retry, reason: err.Error(), sent: true, unreachable: fetch.Unreachable(err)}, nil
	case resp.Location != "":
		return visit{verdict: invalid, reason: "redirects outside Bandcamp, to " + resp.Location, sent: true}, nil
	case resp.Status == http.StatusNotFound || resp.Status == http.StatusGone:
		return visit{verdict: invalid, reason: fmt.Sprintf("no such page (HTTP %d)", resp.Status), sent: true}, nil
	case resp.Status == http.StatusNotModified && seen != (fetch.Validators{}):
		return visit{verdict: valid, notModified: true, url: resp.URL, sent: true, seen: seen}, nil
	case bandcamp.IsChallenge(resp.Body):
		return visit{verdict: retry, reason: "Bandcamp served a challenge page", refused: true, sent: true}, nil
	case resp.Status != http.StatusOK:
		return visit{verdict: retry, reason: fmt.Sprintf("HTTP %d", resp.Status), sent: true,
			refused: resp.Status == http.StatusTooManyRequests}, nil
	}
	page, err := bandcamp.ParseAccount(resp.Body)
	switch {
	case errors.Is(err, bandcamp.ErrChallenge):
		return visit{verdict: retry, reason: "Bandcamp served a challenge page", refused: true, sent: true}, nil
	case err != nil:
		return visit{verdict: invalid, reason: err.Error(), sent: true, unparsed: errors.Is(err, bandcamp.ErrNotAccount)}, nil
	}
	return visit{verdict: valid, page: page, url: resp.URL, sent: true, seen: fetch.ValidatorsOf(resp)}, nil
}

// labelURL is the canonical label_url of a visited account: the custom
// domain's https origin when the page declares one, else the Bandcamp
// subdomain it was found on. The bare bandcamp.com is never an account.
func labelURL(v visit) (string, bool) {
	if d, err := url.Parse(v.page.Declared); err == nil && d.Port() == "" && bandcamp.IsCustomDomain(d.Hostname()) {
		return "https://" + d.Hostname(), true
	}
	host := v.url.Hostname()
	if host == bandcamp.Domain || !(bandcamp.IsBandcampHost(host) || bandcamp.IsCustomDomain(host)) {
		return "", false
	}
	return "https://" + host, true
}
