package ingest

import (
	"fmt"
	"log/slog"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fetch"
)

// pass is the state of one run.
type pass struct {
	*Crawler
	log      *slog.Logger
	progress Progress
	sum      Summary
	// fresh holds /music pages read by the queue stage, so the release
	// stage does not fetch them twice.
	fresh map[int64]visit
	// pushback counts requests in a row that Bandcamp refused; offline,
	// requests in a row that could not reach it.
	pushback, offline int
	// unreachable counts the pass's requests that got no reply at all.
	unreachable int
	// unparsed holds a few "url: reason" of parse failures for the log,
	// labelsUnparsed how many labels had one.
	unparsed       []string
	labelsUnparsed int
	// scope narrows the pass to what an admin asked for.
	scope scope
}

// scope is what an admin's crawl request (admin_request_crawl) asks of a
// pass: the labels it names (nil: every label, and the submission queue),
// read whatever their last visit, since a "crawl now" that skips the label
// because it was read this morning would do nothing the admin can see.
type scope struct {
	labels []int64
	force  bool
}

// judgeFailures fails a pass that ran to its end although every request
// failed: an offline `crawl --once` over fewer labels than
// MaxNetworkFailures, or a day on which no page parsed, is not a success.
func (p *pass) judgeFailures() {
	s := &p.sum
	if p.stopped() || s.Requests == 0 || s.NetworkFailures+s.ParseFailures < s.Requests {
		return
	}
	s.StopReason = StopAllFailed
	if p.unreachable == s.Requests {
		s.StopReason = StopOffline
	}
	s.Stopped = fmt.Sprintf("failed: every one of the %d requests failed (%d not fetched, %d of them unreachable; %d not parsed)",
		s.Requests, s.NetworkFailures, p.unreachable, s.ParseFailures)
}

// stopped reports whether the pass must make no more requests.
func (p *pass) stopped() bool { return p.sum.Stopped != "" }

// outcome is how a request ended, as far as stopping a pass goes.
type outcome int

const (
	// answered: Bandcamp replied, whatever it said.
	answered outcome = iota
	// refused: a challenge page, a 429 that outlasted the back-off, or a
	// site pause.
	refused
	// unreachable: no reply at all (DNS, connection, TLS); see
	// fetch.Unreachable.
	unreachable
)

// outcomeOf classifies a request that was sent.
func outcomeOf(isRefused bool, err error) outcome {
	switch {
	case isRefused:
		return refused
	case fetch.Unreachable(err):
		return unreachable
	}
	return answered
}

// observe notes the outcome of a request. Enough refusals, or enough
// network failures, in a row stop the pass. Any answer resets both counts.
func (p *pass) observe(o outcome, url, reason string) {
	switch o {
	case answered:
		p.pushback, p.offline = 0, 0
		return
	case refused:
		p.pushback++
	case unreachable:
		p.offline++
		p.unreachable++
	}
	if p.stopped() {
		return
	}
	switch {
	case p.pushback >= p.maxPushback:
		p.sum.StopReason = StopRefused
		p.sum.Stopped = fmt.Sprintf("stopped early: Bandcamp refused %d requests in a row (last %s: %s); the rest is left for the next run",
			p.pushback, url, reason)
	case p.offline >= p.maxOffline:
		p.sum.StopReason = StopOffline
		p.sum.Stopped = fmt.Sprintf("stopped early: Bandcamp could not be reached for %d requests in a row (last %s: %s); the rest is left for the next run",
			p.offline, url, reason)
	default:
		return
	}
	p.log.Debug("stopping the pass", "url", url, "reason", reason)
}

// allowFor returns the hosts a label's pages may be fetched from beyond
// Bandcamp's: its custom domain, which the account itself declared.
func allowFor(labelHost string) []string {
	if bandcamp.IsBandcampHost(labelHost) {
		return nil
	}
	return []string{labelHost}
}
