package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// pair is one of issue 31's scenarios on both sides: the request the app
// makes to the gateway and the pREST request that asks PostgreSQL for the
// same rows or the same write.
type pair struct {
	name      string
	labelbase *scenario
	prest     *scenario
	// sameRows: a read, whose two answers must decode to the same rows.
	sameRows bool
}

// read is a read both APIs can express, written once and translated to
// each side's query string, so the two requests cannot drift apart.
type read struct {
	table, cols string
	// eqCol = eqVal filters when eqCol is set.
	eqCol, eqVal string
	order        string
	// offset and limit page when limit > 0.
	offset, limit int
}

// labelbasePath is the read as PostgREST's (and so the gateway's) query
// string: select, col=eq.value, order, offset, limit.
func (r read) labelbasePath() string {
	var b strings.Builder
	fmt.Fprintf(&b, "/rest/v1/%s?select=%s", r.table, r.cols)
	if r.eqCol != "" {
		fmt.Fprintf(&b, "&%s=eq.%s", r.eqCol, r.eqVal)
	}
	if r.order != "" {
		fmt.Fprintf(&b, "&order=%s", r.order)
	}
	if r.offset > 0 {
		fmt.Fprintf(&b, "&offset=%d", r.offset)
	}
	if r.limit > 0 {
		fmt.Fprintf(&b, "&limit=%d", r.limit)
	}
	return b.String()
}

// prestPath is the read as pREST's /{database}/public/{table} query string:
// _select, col=$eq.value, _order, and _page/_page_size, pREST's only way to
// page, which can express an offset only as a whole number of pages.
func (r read) prestPath(db string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "/%s/public/%s?_select=%s", db, r.table, r.cols)
	if r.eqCol != "" {
		fmt.Fprintf(&b, "&%s=$eq.%s", r.eqCol, r.eqVal)
	}
	if r.order != "" {
		fmt.Fprintf(&b, "&_order=%s", r.order)
	}
	if r.limit > 0 {
		if r.offset%r.limit != 0 {
			return "", fmt.Errorf("bench: pREST pages by _page and _page_size only: offset %d is not a multiple of limit %d", r.offset, r.limit)
		}
		fmt.Fprintf(&b, "&_page=%d&_page_size=%d", r.offset/r.limit+1, r.limit)
	} else if r.offset > 0 {
		return "", fmt.Errorf("bench: pREST has no offset without a page size")
	}
	return b.String(), nil
}

// readPair is a read on both sides: the gateway's as the member (RLS on)
// or as anon, pREST's as its superuser; both answer 200.
func readPair(name string, member bool, r read, db string) (pair, error) {
	pp, err := r.prestPath(db)
	if err != nil {
		return pair{}, err
	}
	return pair{name: name, sameRows: true,
		labelbase: &scenario{name: name, member: member, method: "GET", path: r.labelbasePath(), status: 200},
		prest:     &scenario{name: name, method: "GET", path: pp, status: 200},
	}, nil
}

// peerScenarios are issue 31's six: a member's primary-key read (RLS on
// the gateway's side), anon's (bench_items, as in bench:http), a 50-row
// list, a 20-row page without a count (pREST has none to ask for), and a
// submission inserted with Prefer return=minimal and return=representation.
// The inserts go to labels_to_add with the same body on both sides; it
// names user_id because pREST has no auth.uid() to default it, and the
// gateway's insert policy accepts it since it is the member's own. pREST's
// POST always answers the row, so both insert pairs send it the same
// request. As in bench:http the URL is always the same: the table has no
// unique URL and no per-member limit, so every insert succeeds.
func peerScenarios(fx *fixture, db string) ([]pair, error) {
	reads := []struct {
		name   string
		member bool
		r      read
	}{
		{"PK read, member (RLS)", true, read{table: "labels", cols: "id,label_name,label_url,tags", eqCol: "id", eqVal: fmt.Sprint(fx.label)}},
		{"PK read, anon", false, read{table: "bench_items", cols: "id,name,payload", eqCol: "id", eqVal: "4242"}},
		{"50-row list", true, read{table: "releases", cols: "id,title,artist,release_date", order: "id", limit: 50}},
		{"20-row page", true, read{table: "labels", cols: "id,label_name", order: "label_name", offset: 20, limit: 20}},
	}
	var out []pair
	for _, x := range reads {
		p, err := readPair(x.name, x.member, x.r, db)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	body := fmt.Sprintf(`{"label_url":"https://bench-submit.bandcamp.com","user_id":%q}`, fx.user)
	prestInsert := &scenario{name: "insert", method: "POST", path: "/" + db + "/public/labels_to_add", body: body, status: 201}
	// The member may read back only these columns of a submission.
	const visible = "id,label_url,is_processed,is_valid,created_at"
	return append(out,
		pair{name: "insert, return=minimal", prest: prestInsert, labelbase: &scenario{name: "insert, return=minimal", member: true,
			method: "POST", path: "/rest/v1/labels_to_add", body: body, prefer: "return=minimal", status: 201}},
		pair{name: "insert, return=representation", prest: prestInsert, labelbase: &scenario{name: "insert, return=representation",
			member: true, method: "POST", path: "/rest/v1/labels_to_add?select=" + visible, body: body,
			prefer: "return=representation", status: 201}},
	), nil
}

// check sends the pair's two requests once before anything is measured:
// each must get its expected status and, for a read, both must answer the
// same rows; a mismatch is an error, never a figure.
func (p pair) check(ctx context.Context, lb, pr target) error {
	var lbBody, prBody bytes.Buffer
	for _, x := range []struct {
		side string
		to   target
		s    *scenario
		body *bytes.Buffer
	}{{"labelbase", lb, p.labelbase, &lbBody}, {"pREST", pr, p.prest, &prBody}} {
		st, err := x.to.send(ctx, x.s, x.body)
		if err != nil {
			return fmt.Errorf("bench: %s: %s: %w", p.name, x.side, err)
		}
		if !x.s.ok(st) {
			return fmt.Errorf("bench: %s: %s answered %d, want %d: %s", p.name, x.side, st, x.s.status, clip(x.body.Bytes()))
		}
	}
	if !p.sameRows {
		return nil
	}
	if err := sameRows(lbBody.Bytes(), prBody.Bytes()); err != nil {
		return fmt.Errorf("bench: %s: %w", p.name, err)
	}
	return nil
}

// sameRows says whether two JSON arrays of rows hold the same rows in the
// same order, compared decoded: key order and spacing differ between the
// gateway's json and pREST's jsonb_agg, the values must not. An empty
// answer is an error too: a scenario that reads nothing measures nothing.
func sameRows(a, b []byte) error {
	var ra, rb []map[string]any
	if err := json.Unmarshal(a, &ra); err != nil {
		return fmt.Errorf("labelbase's answer is no array of rows: %w: %s", err, clip(a))
	}
	if err := json.Unmarshal(b, &rb); err != nil {
		return fmt.Errorf("pREST's answer is no array of rows: %w: %s", err, clip(b))
	}
	if len(ra) == 0 {
		return fmt.Errorf("no rows: the scenario reads nothing")
	}
	if len(ra) != len(rb) {
		return fmt.Errorf("labelbase answered %d rows, pREST %d", len(ra), len(rb))
	}
	for i := range ra {
		if !reflect.DeepEqual(ra[i], rb[i]) {
			return fmt.Errorf("row %d differs: labelbase %v, pREST %v", i, ra[i], rb[i])
		}
	}
	return nil
}

// clip shortens a body for an error message.
func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
