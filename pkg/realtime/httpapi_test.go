package realtime

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestHTTPBroadcast(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	v1, v2 := dial(t, g, VSN1), dial(t, g, VSN2)
	v1.join("realtime:news", cfg(nil, nil))
	v2.join("realtime:news", cfg(nil, nil))

	// httpSend encodes the topic (realtime-js uses encodeURIComponent).
	if st, body := httpBroadcast(t, g, "news", "headline", "", "", "application/json", `{"title":"hi"}`); st != 202 || body != "" {
		t.Fatalf("JSON send: %d %q", st, body)
	}
	for _, c := range []*client{v1, v2} {
		m := c.expect("HTTP broadcast", 5*time.Second, isBroadcast("headline"))
		if !strings.Contains(string(m.Payload), `"payload":{"title":"hi"}`) {
			t.Fatalf("payload %s", m.Payload)
		}
	}
	if st, _ := httpBroadcast(t, g, "news", "blob", "", "", "application/octet-stream", "\x00\x01bytes"); st != 202 {
		t.Fatalf("binary send: %d", st)
	}
	m := v2.expect("binary HTTP broadcast", 5*time.Second, isBroadcast("blob"))
	if !m.binary || !bytes.Equal(m.Bin.Data, []byte("\x00\x01bytes")) {
		t.Fatalf("binary broadcast arrived as %+v", m)
	}
	// An encoded topic with a colon.
	v2.join("realtime:room:1", cfg(nil, nil))
	if st, _ := httpBroadcast(t, g, "room%3A1", "e", "", "", "application/json", `{}`); st != 202 {
		t.Fatalf("encoded topic: %d", st)
	}
	v2.expect("encoded topic broadcast", 5*time.Second, func(g got) bool { return g.Topic == "realtime:room:1" && isBroadcast("e")(g) })

	bad := []struct {
		name, query, bearer, ctype, body string
		status                           int
	}{
		{"not JSON", "", "", "application/json", `{nope`, 400},
		{"other media type", "", "", "text/plain", `hi`, 415},
		{"expired bearer", "", userToken(t, "u", "authenticated", -time.Hour), "application/json", `{}`, 401},
		{"private as anon without policy", "?private=true", "", "application/json", `{}`, 403},
	}
	for _, tc := range bad {
		if st, body := httpBroadcast(t, g, "news", "e", tc.query, tc.bearer, tc.ctype, tc.body); st != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.name, st, body, tc.status)
		}
	}
	big := `{"s":"` + strings.Repeat("x", 1<<20) + `"}`
	if st, _ := httpBroadcast(t, g, "news", "e", "", "", "application/json", big); st != 413 {
		t.Errorf("oversized body: %d", st)
	}
	// No apikey at all.
	resp, err := http.Post(g.srv.URL+"/realtime/v1/api/broadcast/news/events/e", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("no apikey: %d", resp.StatusCode)
	}
}

// TestHTTPBroadcastBatch: the batch route answers 202; a private message
// the caller may not send is skipped, not refused.
func TestHTTPBroadcastBatch(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	v1 := dial(t, g, VSN1)
	v1.join("realtime:news", cfg(nil, nil))
	batch := func(body string) int {
		req, _ := http.NewRequest("POST", g.srv.URL+"/realtime/v1/api/broadcast", strings.NewReader(body))
		req.Header.Set("apikey", g.cfg.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := batch(`{"messages":[{"topic":"news","event":"secret","payload":{},"private":true},{"topic":"news","event":"b1","payload":{"n":1}}]}`); st != 202 {
		t.Fatalf("batch: %d", st)
	}
	v1.expect("batch message", 5*time.Second, isBroadcast("b1"))
	v1.quiet("the private message anon may not send", 300*time.Millisecond, isBroadcast("secret"))
	for body, want := range map[string]int{`{"messages":[]}`: 422, `{"messages":[{"topic":"","event":"e","payload":{}}]}`: 422,
		`{"messages":[{"topic":"t","event":"e","payload":3}]}`: 422, `[`: 400} {
		if st := batch(body); st != want {
			t.Errorf("batch %s: %d, want %d", body, st, want)
		}
	}
}

// TestDatabaseBroadcast: realtime.send is delivered after commit, in
// commit order, not at all on rollback; large payloads go through the
// bus table; broadcast_changes works from a trigger.
func TestDatabaseBroadcast(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	ctx := context.Background()
	c := dial(t, g, VSN2)
	c.join("realtime:db", cfg(nil, nil))
	pc := dial(t, g, VSN1)
	if _, err := db.Pool.Exec(ctx, `CREATE POLICY "read db" ON realtime.messages FOR SELECT TO anon USING (realtime.topic() = 'db')`); err != nil {
		t.Fatal(err)
	}
	pc.join("realtime:db", map[string]any{"config": map[string]any{"private": true}})

	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT realtime.send('{"n":1}', 'first', 'db', false)`); err != nil {
		t.Fatal(err)
	}
	c.quiet("before commit", 300*time.Millisecond, func(g got) bool { return g.Event == "broadcast" })
	if _, err := tx.Exec(ctx, `SELECT realtime.send('{"n":2}', 'second', 'db', false)`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	first := c.expect("first", 5*time.Second, func(g got) bool { return g.Event == "broadcast" })
	second := c.expect("second", 5*time.Second, func(g got) bool { return g.Event == "broadcast" })
	if !isBroadcast("first")(first) || !isBroadcast("second")(second) {
		t.Fatalf("order: %s then %s", first.Payload, second.Payload)
	}
	tx, _ = db.Pool.Begin(ctx)
	_, _ = tx.Exec(ctx, `SELECT realtime.send('{}', 'rolled-back', 'db', false)`)
	_ = tx.Rollback(ctx)
	// Private by default: only the private channel receives it.
	big := strings.Repeat("y", 20000)
	if _, err := db.Pool.Exec(ctx, `SELECT realtime.send(jsonb_build_object('big', $1::text), 'large', 'db')`, big); err != nil {
		t.Fatal(err)
	}
	m := pc.expect("large private send", 5*time.Second, isBroadcast("large"))
	var p struct {
		Payload struct{ Big string } `json:"payload"`
	}
	_ = json.Unmarshal(m.Payload, &p)
	if p.Payload.Big != big {
		t.Fatalf("large payload came back with %d bytes", len(p.Payload.Big))
	}
	c.quiet("rolled back or private on the public channel", 300*time.Millisecond, func(g got) bool {
		return isBroadcast("rolled-back")(g) || isBroadcast("large")(g)
	})
}

// TestBroadcastChanges: realtime.broadcast_changes from a SECURITY DEFINER
// row trigger, as Supabase's docs write it, also when the writer is a
// client's role; the client roles cannot call realtime.send themselves.
func TestBroadcastChanges(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	ctx := context.Background()
	pc := dial(t, g, VSN1)
	if _, err := db.Pool.Exec(ctx, `CREATE POLICY "read db" ON realtime.messages FOR SELECT TO anon USING (realtime.topic() = 'db')`); err != nil {
		t.Fatal(err)
	}
	pc.join("realtime:db", map[string]any{"config": map[string]any{"private": true}})
	// migrate up leaves the publication empty, as on a new Supabase
	// project; realtime.topic() is NULL outside an authorisation.
	var pubs, tables int
	var topic *string
	if err := db.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_publication WHERE pubname = 'supabase_realtime'),
 (SELECT count(*) FROM pg_publication_tables WHERE pubname = 'supabase_realtime'), realtime.topic()`).Scan(&pubs, &tables, &topic); err != nil {
		t.Fatal(err)
	}
	if pubs != 1 || tables != 0 || topic != nil {
		t.Fatalf("publication %d with %d tables, topic %v", pubs, tables, topic)
	}
	if _, err := db.Pool.Exec(ctx, `
CREATE TABLE public.notes (id int PRIMARY KEY, body text);
CREATE FUNCTION public.notes_changed() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
  PERFORM realtime.broadcast_changes('db', TG_OP, TG_OP, TG_TABLE_NAME, TG_TABLE_SCHEMA, NEW, OLD);
  RETURN NULL;
END $$;
CREATE TRIGGER notes_changed AFTER INSERT OR UPDATE OR DELETE ON public.notes FOR EACH ROW EXECUTE FUNCTION public.notes_changed();
INSERT INTO public.notes VALUES (1, 'hello');
UPDATE public.notes SET body = 'bye' WHERE id = 1;`); err != nil {
		t.Fatal(err)
	}
	ins := pc.expect("INSERT from trigger", 5*time.Second, isBroadcast("INSERT"))
	if !strings.Contains(string(ins.Payload), `"record":{"id":1,"body":"hello"}`) || !strings.Contains(string(ins.Payload), `"old_record":null`) {
		t.Fatalf("INSERT payload %s", ins.Payload)
	}
	upd := pc.expect("UPDATE from trigger", 5*time.Second, isBroadcast("UPDATE"))
	if !strings.Contains(string(upd.Payload), `"old_record":{"id":1,"body":"hello"}`) || !strings.Contains(string(upd.Payload), `"table":"notes"`) {
		t.Fatalf("UPDATE payload %s", upd.Payload)
	}
	if _, err := db.Pool.Exec(ctx, `SELECT realtime.send('{}', NULL, 'db')`); err == nil {
		t.Fatal("realtime.send without an event succeeded")
	}
	// A client's role cannot send past the INSERT policies; a SECURITY
	// DEFINER trigger, as above, can.
	for _, role := range []string{"anon", "authenticated"} {
		tx, _ := db.Pool.Begin(ctx)
		_, err := tx.Exec(ctx, "SET LOCAL ROLE "+role+"; SELECT realtime.send('{}', 'e', 'db', false)")
		_ = tx.Rollback(ctx)
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("realtime.send as %s: %v", role, err)
		}
	}
	if _, err := db.Pool.Exec(ctx, "GRANT INSERT, UPDATE ON public.notes TO authenticated"); err != nil {
		t.Fatal(err)
	}
	tx, _ := db.Pool.Begin(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE authenticated; INSERT INTO public.notes VALUES (2, 'as a member')"); err != nil {
		t.Fatalf("trigger as authenticated: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	pc.expect("INSERT by authenticated through the definer trigger", 5*time.Second, func(g got) bool {
		return isBroadcast("INSERT")(g) && strings.Contains(string(g.Payload), "as a member")
	})
}
