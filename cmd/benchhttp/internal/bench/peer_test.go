package bench

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// The six pairs ask both APIs for the same thing: these are the requests
// each side gets, written out.
func TestPeerScenariosTranslate(t *testing.T) {
	pairs, err := peerScenarios(&fixture{user: "u-1", label: 7}, "bench")
	if err != nil {
		t.Fatal(err)
	}
	body := `{"label_url":"https://bench-submit.bandcamp.com","user_id":"u-1"}`
	want := []struct{ lb, lbPrefer, prest string }{
		{"GET /rest/v1/labels?select=id,label_name,label_url,tags&id=eq.7", "", "GET /bench/public/labels?_select=id,label_name,label_url,tags&id=$eq.7"},
		{"GET /rest/v1/bench_items?select=id,name,payload&id=eq.4242", "", "GET /bench/public/bench_items?_select=id,name,payload&id=$eq.4242"},
		{"GET /rest/v1/releases?select=id,title,artist,release_date&order=id&limit=50", "", "GET /bench/public/releases?_select=id,title,artist,release_date&_order=id&_page=1&_page_size=50"},
		{"GET /rest/v1/labels?select=id,label_name&order=label_name&offset=20&limit=20", "", "GET /bench/public/labels?_select=id,label_name&_order=label_name&_page=2&_page_size=20"},
		{"POST /rest/v1/labels_to_add " + body, "return=minimal", "POST /bench/public/labels_to_add " + body},
		{"POST /rest/v1/labels_to_add?select=id,label_url,is_processed,is_valid,created_at " + body, "return=representation", "POST /bench/public/labels_to_add " + body},
	}
	if len(pairs) != len(want) {
		t.Fatalf("%d pairs, want %d", len(pairs), len(want))
	}
	line := func(s *scenario) string { return strings.TrimSpace(s.method + " " + s.path + " " + s.body) }
	for i, p := range pairs {
		if got := line(p.labelbase); got != want[i].lb || p.labelbase.prefer != want[i].lbPrefer {
			t.Errorf("%s: labelbase %q (Prefer %q), want %q (Prefer %q)", p.name, got, p.labelbase.prefer, want[i].lb, want[i].lbPrefer)
		}
		if got := line(p.prest); got != want[i].prest {
			t.Errorf("%s: pREST %q, want %q", p.name, got, want[i].prest)
		}
		if p.prest.member || p.prest.prefer != "" {
			t.Errorf("%s: pREST request carries member %v, Prefer %q", p.name, p.prest.member, p.prest.prefer)
		}
		if read := p.labelbase.method == "GET"; p.sameRows != read {
			t.Errorf("%s: rows compared %v, want %v", p.name, p.sameRows, read)
		}
	}
	if !pairs[0].labelbase.member || pairs[1].labelbase.member {
		t.Error("the member's read must carry the member's token, anon's must not")
	}
}

// pREST pages by page number only: an offset between pages cannot be
// translated, and must not be approximated.
func TestReadOffsetMustBeWholePages(t *testing.T) {
	if _, err := (read{table: "labels", cols: "id", offset: 10, limit: 20}).prestPath("bench"); err == nil {
		t.Error("offset 10 with limit 20 translated")
	}
	if _, err := (read{table: "labels", cols: "id", offset: 10}).prestPath("bench"); err == nil {
		t.Error("an offset without a limit translated")
	}
	if got, _ := (read{table: "labels", cols: "id", offset: 40, limit: 20}).prestPath("db"); got != "/db/public/labels?_select=id&_page=3&_page_size=20" {
		t.Errorf("offset 40 limit 20: %s", got)
	}
}

func TestSameRows(t *testing.T) {
	gateway := `[{"id":1,"name":"a","payload":{"n":1,"tags":["a","b"]}},{"id":2,"name":"b","payload":null}]`
	for _, c := range []struct {
		prest string
		same  bool
	}{
		{`[{"payload": {"tags": ["a", "b"], "n": 1}, "name": "a", "id": 1}, {"id": 2, "name": "b", "payload": null}]`, true},
		{`[{"id":1,"name":"a","payload":{"n":1,"tags":["a","b"]}}]`, false},
		{`[{"id":2,"name":"b","payload":null},{"id":1,"name":"a","payload":{"n":1,"tags":["a","b"]}}]`, false},
		{`[{"id":1,"name":"a","payload":{"n":1,"tags":["b","a"]}},{"id":2,"name":"b","payload":null}]`, false},
		{`[{"id":1,"name":"a","payload":{"n":1,"tags":["a","b"]}},{"id":2,"name":"b"}]`, false},
		{`{"error":"x"}`, false},
	} {
		if err := sameRows([]byte(gateway), []byte(c.prest)); (err == nil) != c.same {
			t.Errorf("%s: same %v, err %v", c.prest, c.same, err)
		}
	}
	if err := sameRows([]byte(`[]`), []byte(`[]`)); err == nil {
		t.Error("two empty answers pass: the scenario would measure nothing")
	}
}

// The check before measuring refuses a wrong status and different rows,
// and passes the same rows however each side spells them.
func TestPairCheck(t *testing.T) {
	answer := func(status int, body string) target {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return target{base: srv.URL, client: srv.Client()}
	}
	p, err := readPair("r", false, read{table: "t", cols: "id", eqCol: "id", eqVal: "1"}, "db")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.check(ctx, answer(200, `[{"id":1}]`), answer(200, `[ {"id": 1} ]`)); err != nil {
		t.Errorf("same rows: %v", err)
	}
	if err := p.check(ctx, answer(200, `[{"id":1}]`), answer(200, `[{"id":2}]`)); err == nil {
		t.Error("different rows passed")
	}
	if err := p.check(ctx, answer(200, `[{"id":1}]`), answer(400, `{"error":"x"}`)); err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("pREST's 400: %v", err)
	}
}

func TestPrintPeerRow(t *testing.T) {
	side := func(rps float64, p50 time.Duration, self, server time.Duration) Side {
		return Side{Ops: 1, RPS: rps, P50: p50, P95: 2 * p50, P99: 3 * p50, Self: self, Server: server}
	}
	var b bytes.Buffer
	printPeerRow(&b, PeerResult{Name: "PK read, anon", Workers: 64,
		Labelbase: side(3000, time.Millisecond, 210*time.Microsecond, 150*time.Microsecond),
		Peer:      side(2000, 1500*time.Microsecond, 320*time.Microsecond, 170*time.Microsecond)})
	// ceiling: pREST's 320 + 170 µs over the gateway's PostgreSQL 150 µs.
	want := "| PK read, anon | 64 | 3000 | 2000 | 1.50 | 3.27 | 1.00 / 2.00 / 3.00 ms | 1.50 / 3.00 / 4.50 ms | 210 + 150 / 320 + 170 |\n"
	if b.String() != want {
		t.Errorf("row\n%s want\n%s", b.String(), want)
	}
	b.Reset()
	printPeerTableHead(&b, 16)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if head, rule := lines[len(lines)-2], lines[len(lines)-1]; strings.Count(head, "|") != strings.Count(rule, "|") || strings.Count(head, "|") != strings.Count(want, "|") {
		t.Errorf("table head and row disagree on columns:\n%s\n%s\n%s", head, rule, want)
	}
}

// TestCeiling: the ratio a gateway costing nothing would reach is bounded
// by the PostgreSQL work its requests cause, and unknown without a meter.
func TestCeiling(t *testing.T) {
	r := PeerResult{Labelbase: Side{Self: 190 * time.Microsecond, Server: 340 * time.Microsecond},
		Peer: Side{Self: 230 * time.Microsecond, Server: 300 * time.Microsecond}}
	if c := r.Ceiling(); c < 1.558 || c > 1.559 {
		t.Errorf("ceiling %.4f, want 530/340 = 1.5588", c)
	}
	r.Labelbase.Self = 0
	if c := r.Ceiling(); c < 1.558 || c > 1.559 {
		t.Errorf("the gateway's own CPU changed the ceiling: %.4f", c)
	}
	r.Labelbase.Server = 0
	if c := r.Ceiling(); c != 0 {
		t.Errorf("no PostgreSQL meter: ceiling %.2f, want 0", c)
	}
}

func TestParseWorkersList(t *testing.T) {
	if l, err := ParseWorkersList("16, 64"); err != nil || len(l) != 2 || l[0] != 16 || l[1] != 64 {
		t.Errorf("16, 64: %v %v", l, err)
	}
	for _, bad := range []string{"", "16,", "0", "x"} {
		if _, err := ParseWorkersList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDatabaseName(t *testing.T) {
	if n, err := databaseName("postgres://u:p@127.0.0.1:5432/bench?sslmode=disable"); err != nil || n != "bench" {
		t.Errorf("%q %v", n, err)
	}
	if _, err := databaseName("postgres://u:p@127.0.0.1:5432/"); err == nil {
		t.Error("a URL without a database accepted")
	}
}

// Only prestd of the pinned version is accepted: the test binary is not.
func TestCheckPrestRefusesOtherBinaries(t *testing.T) {
	if err := checkPrest(os.Args[0]); err == nil {
		t.Error("the test binary passed as pREST")
	}
}

// One short round against a real pREST. Building pREST takes minutes, so
// this runs only when LABELBASE_BENCH_PREST names a prestd of the pinned
// version (go run ./cmd/benchhttp -peer prest builds and caches one).
func TestPeerRunsEveryPair(t *testing.T) {
	bin := os.Getenv("LABELBASE_BENCH_PREST")
	if bin == "" {
		t.Skip("LABELBASE_BENCH_PREST is not set (a prestd " + prestVersion + " binary)")
	}
	db := pgtest.NewEmpty(t)
	o := Defaults()
	o.Peer, o.PrestBinary, o.DatabaseURL = "prest", bin, db.URL
	o.Dataset = Dataset{Labels: 40, ReleasesPerLabel: 5, Follows: 10}
	o.WorkersList, o.PoolSize, o.Rounds, o.Phase, o.MaxOps = []int{2}, 2, 1, 50*time.Millisecond, 50
	o.Out, o.Log = io.Discard, slog.New(slog.DiscardHandler)
	res, err := RunPeer(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 6 {
		t.Fatalf("%d results, want the six pairs", len(res))
	}
	for _, r := range res {
		if r.Labelbase.Ops == 0 || r.Peer.Ops == 0 || r.Ratio() <= 0 {
			t.Errorf("%s: labelbase %d ops, pREST %d, ratio %.2f", r.Name, r.Labelbase.Ops, r.Peer.Ops, r.Ratio())
		}
	}
}
