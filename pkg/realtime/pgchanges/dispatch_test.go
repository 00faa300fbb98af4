package pgchanges

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func readingsChange(kind string, id, tag string) *change {
	cols := []column{{Name: "id", Type: "int4", Key: true}, {Name: "tag", Type: "text"}}
	c := &change{Schema: "public", Table: "readings", Kind: kind, Commit: "2026-11-27T20:00:00.000Z", Columns: cols}
	row := []value{{Text: id}, {Text: tag}}
	if kind == "DELETE" {
		c.Old = row
	} else {
		c.New = row
	}
	return c
}

// Routing without a database: event and table matching, cancel, and
// bindings that can never match (a bad filter, a role outside the API).
func TestDispatchRouting(t *testing.T) {
	s := New(Config{Bus: newMemBus()})
	ctx := context.Background()
	ins, all, bad := newSink(), newSink(), newSink()
	cancelIns := s.Subscribe([]Subscription{{ID: 1, Event: "INSERT", Schema: "public", Table: "readings", Role: "anon"},
		{ID: 2, Event: "DELETE", Schema: "public", Table: "readings", Role: "anon"},
		{ID: 3, Event: "INSERT", Schema: "public", Table: "other", Role: "anon"}}, ins.deliver)
	defer s.Subscribe([]Subscription{{ID: 4, Event: "*", Schema: "public", Role: "anon"}}, all.deliver)()
	defer s.Subscribe([]Subscription{{ID: 5, Event: "*", Schema: "public", Table: "readings", Role: "postgres"},
		{ID: 6, Event: "*", Schema: "public", Table: "readings", Role: "anon", Filter: "id=like.1"}}, bad.deliver)()

	s.dispatch(ctx, readingsChange("INSERT", "1", "a"))
	s.dispatch(ctx, readingsChange("DELETE", "1", "a"))
	cancelIns()
	s.dispatch(ctx, readingsChange("INSERT", "2", "b"))
	if got := fmt.Sprint(idsOf(ins.all())); got != "[[1] [2]]" {
		t.Errorf("INSERT/DELETE subscriber got %s, want [[1] [2]] and nothing after cancel", got)
	}
	if got := fmt.Sprint(idsOf(all.all())); got != "[[4] [4] [4]]" {
		t.Errorf("whole-schema subscriber got %s", got)
	}
	if n := len(bad.all()); n != 0 {
		t.Errorf("bindings that can never match got %d events", n)
	}
}

func idsOf(ev []event) [][]int {
	var out [][]int
	for _, e := range ev {
		out = append(out, e.IDs)
	}
	return out
}

// Garbage on the bus is dropped, not a panic.
func TestDispatchRawRejectsGarbage(t *testing.T) {
	s := New(Config{Bus: newMemBus()})
	k := newSink()
	defer s.Subscribe([]Subscription{{ID: 1, Event: "*", Schema: "public", Table: "readings", Role: "anon"}}, k.deliver)()
	for _, raw := range []string{``, `{`, `[]`, `{"s":"public","t":"readings","k":"INSERT","cols":[{"n":"id","t":"int4"}],"new":["1","2"]}`} {
		s.dispatchRaw(context.Background(), []byte(raw))
	}
	if n := len(k.all()); n != 0 {
		t.Errorf("%d events from garbage", n)
	}
}

// A row over maxRecordBytes goes out with its primary key and Supabase's
// 413 error.
func TestTooLargeRecord(t *testing.T) {
	c := readingsChange("INSERT", "7", strings.Repeat("x", maxRecordBytes+1))
	b, err := c.encode()
	if err != nil || len(b) > 1000 {
		t.Fatalf("encode: %d bytes, %v", len(b), err)
	}
	back, err := decodeChange(b)
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(back.payload(), &p); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p["record"]) != "map[id:7]" || fmt.Sprint(p["errors"]) != "[Error 413: Payload Too Large]" {
		t.Errorf("payload %v", p)
	}
}

func TestValueJSONRoundTrip(t *testing.T) {
	in := []value{{Text: "a"}, {Null: true}, {Missing: true}, {Text: ""}, {Text: "null"}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out []value
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(in) != fmt.Sprint(out) {
		t.Errorf("round trip %s: %v != %v", b, out, in)
	}
}

// The RLS statement: one call decides every group; a role without the
// table privilege sees nothing instead of failing the others.
func TestVisibleGroups(t *testing.T) {
	b := setup(t)
	b.exec(t, "INSERT INTO public.notes VALUES (42, $1, 'mine')", memberA)
	s := New(Config{Pool: b.db.Pool, Bus: b.bus})
	c := &change{Schema: "public", Table: "notes", Kind: "UPDATE", RLS: true,
		Columns: []column{{Name: "id", Type: "int8", Key: true}, {Name: "owner", Type: "uuid"}},
		New:     []value{{Text: "42"}, {Text: memberA}}}
	groups := []group{{"authenticated", string(claimsOf(memberB))}, {"authenticated", string(claimsOf(memberA))},
		{"anon", `{"role":"anon"}`}, {"service_role", `{"role":"service_role"}`}}
	got := s.visible(context.Background(), c, groups)
	if fmt.Sprint(got) != "[false true false true]" {
		t.Errorf("visible = %v, want [false true false true]", got)
	}
	if n := s.checks.Load(); n != 1 {
		t.Errorf("%d statements, want 1", n)
	}
	// The statement leaves the session as it found it.
	var role, claims string
	if err := b.db.Pool.QueryRow(context.Background(),
		"SELECT current_user, coalesce(current_setting('request.jwt.claims', true), '')").Scan(&role, &claims); err != nil {
		t.Fatal(err)
	}
	if role != "postgres" || claims != "" {
		t.Errorf("session after the check: role %q, claims %q", role, claims)
	}
}

// A policy that raises for one group hides the row from that group only.
func TestVisiblePolicyRaises(t *testing.T) {
	b := setup(t)
	b.exec(t, `CREATE POLICY notes_fussy ON public.notes FOR SELECT TO authenticated
		USING (CASE WHEN auth.jwt() ->> 'fussy' = 'yes' THEN (auth.jwt() ->> 'fussy')::int = 1 ELSE true END)`)
	b.exec(t, "INSERT INTO public.notes VALUES (42, $1, 'mine')", memberA)
	s := New(Config{Pool: b.db.Pool, Bus: b.bus})
	c := &change{Schema: "public", Table: "notes", Kind: "INSERT", RLS: true,
		Columns: []column{{Name: "id", Type: "int8", Key: true}}, New: []value{{Text: "42"}}}
	groups := []group{{"authenticated", `{"sub":"` + memberA + `","role":"authenticated"}`},
		{"authenticated", `{"sub":"` + memberB + `","role":"authenticated","fussy":"yes"}`}}
	if got := s.visible(context.Background(), c, groups); fmt.Sprint(got) != "[true false]" {
		t.Errorf("visible = %v, want [true false]", got)
	}
	if n := s.checks.Load(); n != 2 {
		t.Errorf("%d statements, want 2 (one failed, one isolated)", n)
	}
}

// The check waits for the change's transaction to be visible: decoding
// can ship a commit a moment before new snapshots see it, and the row
// must not be judged invisible then.
func TestVisibleWaitsForCommit(t *testing.T) {
	b := setup(t)
	ctx := context.Background()
	tx, err := b.db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var xid int64
	if err := tx.QueryRow(ctx, "INSERT INTO public.notes VALUES (9, $1, 'late') RETURNING txid_current() % 4294967296",
		memberA).Scan(&xid); err != nil {
		t.Fatal(err)
	}
	s := New(Config{Pool: b.db.Pool, Bus: b.bus})
	c := &change{Schema: "public", Table: "notes", Kind: "INSERT", RLS: true, Xid: uint32(xid),
		Columns: []column{{Name: "id", Type: "int8", Key: true}}, New: []value{{Text: "9"}}}
	got := make(chan []bool, 1)
	go func() { got <- s.visible(ctx, c, []group{{"authenticated", string(claimsOf(memberA))}}) }()
	time.Sleep(100 * time.Millisecond)
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if v := <-got; fmt.Sprint(v) != "[true]" {
		t.Errorf("visible = %v, want [true] once the transaction committed", v)
	}
}

// A DELETE under RLS is filtered on what it carries, the primary key: a
// filter on another column does not match it, one on the key does.
func TestDeleteFilterUnderRLS(t *testing.T) {
	s := New(Config{Bus: newMemBus()})
	onTag, onID := newSink(), newSink()
	defer s.Subscribe([]Subscription{{ID: 1, Event: "DELETE", Schema: "public", Table: "readings", Role: "anon", Filter: "tag=eq.a"}}, onTag.deliver)()
	defer s.Subscribe([]Subscription{{ID: 2, Event: "DELETE", Schema: "public", Table: "readings", Role: "anon", Filter: "id=eq.1"}}, onID.deliver)()
	c := readingsChange("DELETE", "1", "a")
	c.RLS = true
	s.dispatch(context.Background(), c)
	if n := len(onTag.all()); n != 0 {
		t.Errorf("a filter on a withheld column matched %d times", n)
	}
	ev := onID.all()
	if len(ev) != 1 || fmt.Sprint(ev[0].Data["old_record"]) != "map[id:1]" {
		t.Errorf("key filter: %+v", ev)
	}
	// Without RLS the whole old row is there, and so is the filter.
	c = readingsChange("DELETE", "1", "a")
	s.dispatch(context.Background(), c)
	if n := len(onTag.all()); n != 1 {
		t.Errorf("without RLS, tag filter matched %d times, want 1", n)
	}
}
