package pgchanges

import (
	"fmt"
	"testing"
	"time"
)

const (
	memberA = "00000000-0000-4000-8000-00000000000a"
	memberB = "00000000-0000-4000-8000-00000000000b"
)

func claimsOf(sub string) []byte {
	return []byte(fmt.Sprintf(`{"sub":%q,"role":"authenticated","aud":"authenticated"}`, sub))
}

func notesSub(id int, member, event string) Subscription {
	return Subscription{ID: id, Event: event, Schema: "public", Table: "notes", Role: "authenticated", Claims: claimsOf(member)}
}

// Member B never receives member A's row, and each receives their own,
// in commit order.
func TestRLSPerSubscriber(t *testing.T) {
	b := setup(t)
	s, _ := b.gateway(t)
	waitLeading(t, s)
	a, bb := newSink(), newSink()
	defer s.Subscribe([]Subscription{notesSub(1, memberA, "*")}, a.deliver)()
	defer s.Subscribe([]Subscription{notesSub(2, memberB, "INSERT")}, bb.deliver)()

	b.exec(t, "INSERT INTO public.notes VALUES (1, $1, 'a1')", memberA)
	b.exec(t, "INSERT INTO public.notes VALUES (2, $1, 'b1')", memberB)
	b.exec(t, "INSERT INTO public.notes VALUES (3, $1, 'a2')", memberA)
	evA := a.waitFor(t, 2)
	evB := bb.waitFor(t, 1)
	time.Sleep(200 * time.Millisecond) // anything misrouted would have arrived by now
	if got := bodies(a.all()); fmt.Sprint(got) != "[a1 a2]" {
		t.Errorf("member A got %v, want [a1 a2]", got)
	}
	if got := bodies(bb.all()); fmt.Sprint(got) != "[b1]" {
		t.Errorf("member B got %v, want [b1]", got)
	}
	if fmt.Sprint(evA[0].IDs) != "[1]" || fmt.Sprint(evB[0].IDs) != "[2]" {
		t.Errorf("ids: A %v, B %v", evA[0].IDs, evB[0].IDs)
	}
	d := evA[0].Data
	if d["type"] != "INSERT" || d["eventType"] != "INSERT" || d["schema"] != "public" || d["table"] != "notes" || d["errors"] != nil {
		t.Errorf("payload head: %v", d)
	}
	if rec := d["record"].(map[string]any); rec["id"] != float64(1) || rec["owner"] != memberA {
		t.Errorf("record: %v", rec)
	}
	if _, ok := d["old_record"]; ok {
		t.Errorf("an INSERT carries no old_record: %v", d)
	}
	if ts, _ := d["commit_timestamp"].(string); len(ts) != len("2006-01-02T15:04:05.000Z") {
		t.Errorf("commit_timestamp %q", ts)
	}
}

func bodies(ev []event) []string {
	var out []string
	for _, e := range ev {
		rec, _ := e.Data["record"].(map[string]any)
		out = append(out, fmt.Sprint(rec["body"]))
	}
	return out
}

// Fifty sockets with the same claims cost one RLS statement per change,
// and two claims groups still cost one.
func TestSameClaimsOneCheck(t *testing.T) {
	b := setup(t)
	s, _ := b.gateway(t)
	waitLeading(t, s)
	sinks := make([]*sink, 50)
	for i := range sinks {
		sinks[i] = newSink()
		defer s.Subscribe([]Subscription{notesSub(i+1, memberA, "INSERT")}, sinks[i].deliver)()
	}
	other := newSink()
	defer s.Subscribe([]Subscription{notesSub(99, memberB, "INSERT")}, other.deliver)()
	before := s.checks.Load()
	b.exec(t, "INSERT INTO public.notes VALUES (1, $1, 'x')", memberA)
	for _, k := range sinks {
		k.waitFor(t, 1)
	}
	if n := s.checks.Load() - before; n != 1 {
		t.Errorf("%d RLS statements for one change, want 1", n)
	}
	if n := len(other.all()); n != 0 {
		t.Errorf("member B received %d events of member A's row", n)
	}
}

// UPDATE carries the whole old row (REPLICA IDENTITY FULL); DELETE under
// RLS carries only the primary key and is not checked against RLS.
func TestUpdateDeleteOldRecord(t *testing.T) {
	b := setup(t)
	s, _ := b.gateway(t)
	waitLeading(t, s)
	a := newSink()
	defer s.Subscribe([]Subscription{notesSub(7, memberA, "*")}, a.deliver)()
	r := newSink()
	defer s.Subscribe([]Subscription{{ID: 8, Event: "DELETE", Schema: "public", Table: "readings", Role: "anon"}}, r.deliver)()

	// Each step waits for the previous event: the RLS check reads the
	// row as it is when the check runs, so a row deleted before its INSERT
	// was checked is no longer visible (as in Supabase).
	b.exec(t, "INSERT INTO public.notes VALUES (1, $1, 'before')", memberA)
	a.waitFor(t, 1)
	b.exec(t, "UPDATE public.notes SET body = 'after' WHERE id = 1")
	a.waitFor(t, 2)
	b.exec(t, "DELETE FROM public.notes WHERE id = 1")
	b.exec(t, "INSERT INTO public.readings (id, tag) VALUES (5, 'gone')")
	b.exec(t, "DELETE FROM public.readings WHERE id = 5")
	ev := a.waitFor(t, 3)
	upd, del := ev[1].Data, ev[2].Data
	if upd["type"] != "UPDATE" || upd["record"].(map[string]any)["body"] != "after" ||
		upd["old_record"].(map[string]any)["body"] != "before" {
		t.Errorf("update: %v", upd)
	}
	if del["type"] != "DELETE" || fmt.Sprint(del["old_record"]) != "map[id:1]" {
		t.Errorf("delete under RLS: old_record %v, want the primary key only", del["old_record"])
	}
	if _, ok := del["record"]; ok {
		t.Errorf("a DELETE carries no record: %v", del)
	}
	rd := r.waitFor(t, 1)[0].Data
	if old := rd["old_record"].(map[string]any); old["tag"] != "gone" || old["id"] != float64(5) {
		t.Errorf("delete without RLS, replica identity full: old_record %v, want the whole row", old)
	}
}

// An UPDATE that leaves a TOASTed value alone: the WAL's new row lacks it,
// and with REPLICA IDENTITY FULL it is taken from the old row.
func TestUnchangedToast(t *testing.T) {
	b := setup(t)
	s, _ := b.gateway(t)
	waitLeading(t, s)
	k := newSink()
	defer s.Subscribe([]Subscription{{ID: 1, Event: "UPDATE", Schema: "public", Table: "readings", Role: "anon"}}, k.deliver)()
	b.exec(t, `INSERT INTO public.readings (id, n, tag)
		SELECT 1, 1, string_agg(md5(g::text), '') FROM generate_series(1, 2000) g`) // 64 kB, stored out of line
	b.exec(t, "UPDATE public.readings SET n = 2 WHERE id = 1")
	rec := k.waitFor(t, 1)[0].Data["record"].(map[string]any)
	if tag, _ := rec["tag"].(string); len(tag) != 64000 || rec["n"] != float64(2) {
		t.Errorf("record: n %v, tag of %d bytes; want 2 and 64000", rec["n"], len(tag))
	}
}
