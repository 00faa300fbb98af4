package ingest

import (
	"context"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
)

// judgement is the outcome for every queue row holding one URL.
type judgement struct {
	verdict verdict
	reason  string
	labelID int64
}

// processQueue judges every unprocessed submission. Rows that normalise to
// the same URL are judged once.
func (p *pass) processQueue(ctx context.Context) error {
	rows, err := p.store.pending(ctx)
	if err != nil {
		return err
	}
	type group struct {
		sub bandcamp.Submission
		ids []int64
	}
	var groups []*group
	byKey := map[string]*group{}
	var candidates []string
	for _, r := range rows {
		sub := bandcamp.NormaliseSubmission(r.url)
		key := sub.URL
		if sub.Kind == bandcamp.Invalid {
			key = "invalid:" + r.url
		}
		g := byKey[key]
		if g == nil {
			g = &group{sub: sub}
			byKey[key] = g
			groups = append(groups, g)
			if sub.URL != "" {
				candidates = append(candidates, sub.URL)
			}
		}
		g.ids = append(g.ids, r.id)
	}
	known, err := p.store.labelIDs(ctx, candidates)
	if err != nil {
		return err
	}
	for i, g := range groups {
		if p.stopped() {
			// Left unprocessed, attempts untouched, for the next pass.
			p.log.Debug("queue rows left for the next pass", "groups", len(groups)-i)
			break
		}
		j, err := p.judge(ctx, g.sub, known)
		if err != nil {
			return err
		}
		if err := p.store.settle(ctx, g.ids, j); err != nil {
			return err
		}
		n := len(g.ids)
		p.sum.Checked += n
		log := p.log.With("url", g.sub.URL, "rows", n, "verdict", j.verdict.String())
		switch j.verdict {
		case valid:
			p.sum.Valid += n
			log.Debug("submission accepted", "label_id", j.labelID)
		case invalid:
			p.sum.Invalid += n
			log.Debug("submission rejected", "reason", j.reason)
		case retry:
			p.sum.Retried += n
			log.Debug("submission left for a later run", "reason", j.reason)
		}
		p.progress(Step{Stage: StageQueue, Done: i + 1, Total: len(groups), Item: g.sub.URL})
	}
	return nil
}

// judge decides one submission. known maps label URLs to label ids; it is
// updated with labels this pass creates.
func (p *pass) judge(ctx context.Context, sub bandcamp.Submission, known map[string]int64) (judgement, error) {
	var target string
	switch sub.Kind {
	case bandcamp.Invalid:
		return judgement{verdict: invalid, reason: sub.Reason}, nil
	case bandcamp.Foreign:
		// Never fetched: a submission alone must not send the crawler to
		// an arbitrary host. A custom domain some known account declared
		// is fine.
		if id, ok := known[sub.URL]; ok {
			return judgement{verdict: valid, labelID: id}, nil
		}
		return judgement{verdict: invalid, reason: "not a Bandcamp URL; submit the account's bandcamp.com address"}, nil
	case bandcamp.Account:
		if id, ok := known[sub.URL]; ok {
			return judgement{verdict: valid, labelID: id}, nil
		}
		target = sub.URL + "/music"
	case bandcamp.SitePage:
		target = sub.URL
	}
	v, err := p.visitAccount(ctx, target)
	if err != nil {
		return judgement{}, err
	}
	if v.verdict != valid {
		return judgement{verdict: v.verdict, reason: v.reason}, nil
	}
	lu, ok := labelURL(v)
	if !ok {
		return judgement{verdict: invalid, reason: "not an artist or label account"}, nil
	}
	id, err := p.store.ensureLabel(ctx, v.page.Name, lu, bandcamp.LabelTags("", v.page.Location, nil))
	if err != nil {
		return judgement{}, err
	}
	p.fresh[id] = v
	known[lu], known[sub.URL] = id, id
	return judgement{verdict: valid, labelID: id}, nil
}
