package sqlfiles_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// liveMessage is a realtime.send envelope as the gateways' bus carries it.
type liveMessage struct {
	Topic   string          `json:"topic"`
	Event   string          `json:"event"`
	Private bool            `json:"private"`
	Payload json.RawMessage `json:"payload"`
}

func (m liveMessage) String() string {
	return fmt.Sprintf("%s/%s private=%v %s", m.Topic, m.Event, m.Private, m.Payload)
}

// busListener reads what the app_live triggers send through realtime.send.
type busListener struct {
	t    *testing.T
	conn *pgx.Conn
}

func listenBus(t *testing.T, e *env) *busListener {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.db.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "LISTEN realtime_broadcast"); err != nil {
		t.Fatal(err)
	}
	return &busListener{t: t, conn: conn}
}

// next is the next message, or ok false when none comes within wait.
func (l *busListener) next(wait time.Duration) (liveMessage, bool) {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	n, err := l.conn.WaitForNotification(ctx)
	if err != nil {
		return liveMessage{}, false
	}
	var m liveMessage
	if err := json.Unmarshal([]byte(n.Payload), &m); err != nil {
		l.t.Fatalf("bus message %q: %v", n.Payload, err)
	}
	return m, true
}

// expect requires the next messages to be want, in order, and no more.
func (l *busListener) expect(step string, want ...string) {
	l.t.Helper()
	for _, w := range want {
		m, ok := l.next(5 * time.Second)
		if !ok {
			l.t.Fatalf("%s: no message, want %s", step, w)
		}
		if got := m.String(); got != w {
			l.t.Fatalf("%s: got %s, want %s", step, got, w)
		}
	}
	if m, ok := l.next(200 * time.Millisecond); ok {
		l.t.Fatalf("%s: unexpected %s", step, m)
	}
}

// TestAppLiveBroadcasts checks the app's live updates at their source
// (sql/migrations/20261127205500_app_live): the messages its triggers send
// when a member marks or unmarks a release, when releases are added (per
// statement, counted per label, hidden labels left out) and when the
// admin queue or crawl runs change; and who may receive each private
// topic under the policies on realtime.messages.
func TestAppLiveBroadcasts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := pgtest.CreateUser(t, e.db.Pool, "live-a@example.com", "password-a")
	b := pgtest.CreateUser(t, e.db.Pool, "live-b@example.com", "password-b")
	adminID := pgtest.CreateUser(t, e.db.Pool, "live-admin@example.com", "password-c")
	makeAdmin(t, e, adminID)
	ma, mb := member("A", a), member("B", b)
	admin := adminCaller("admin", adminID, "live-admin@example.com")
	superExec(t, e.db, `
		INSERT INTO public.labels (id, label_name, label_url) VALUES
		  (1, 'Seen', 'https://seen.bandcamp.com'), (2, 'Also', 'https://also.bandcamp.com'),
		  (3, 'Hidden', 'https://hidden.bandcamp.com');
		INSERT INTO private.hidden_labels (label_id) VALUES (3);`)
	bus := listenBus(t, e)

	superExec(t, e.db, `INSERT INTO public.releases (id, label_id, title, release_url) VALUES
		(10, 1, 'a', 'https://seen.bandcamp.com/album/a'), (11, 1, 'b', 'https://seen.bandcamp.com/album/b'),
		(12, 2, 'c', 'https://also.bandcamp.com/album/c'), (13, 3, 'd', 'https://hidden.bandcamp.com/album/d')`)
	bus.expect("releases added in one statement", `releases/added private=true {"labels": {"1": 2, "2": 1}}`)
	superExec(t, e.db, `INSERT INTO public.releases (id, label_id, title, release_url) VALUES
		(14, 3, 'e', 'https://hidden.bandcamp.com/album/e')`)
	bus.expect("a hidden label's release")

	if err := e.commit(ma, `INSERT INTO public.user_listened_releases (user_id, release_id) VALUES ($1, 10)`, a); err != nil {
		t.Fatalf("member marks: %v", err)
	}
	bus.expect("mark", fmt.Sprintf(`listens:%s/listen private=true {"listened": true, "release_id": 10}`, a))
	if err := e.commit(ma, `DELETE FROM public.user_listened_releases WHERE release_id = 10`); err != nil {
		t.Fatalf("member unmarks: %v", err)
	}
	bus.expect("unmark", fmt.Sprintf(`listens:%s/listen private=true {"listened": false, "release_id": 10}`, a))

	if err := e.commit(mb, `INSERT INTO public.labels_to_add (label_url, is_processed, is_valid, user_id)
		VALUES ('https://new.bandcamp.com', false, false, $1)`, b); err != nil {
		t.Fatalf("member submits: %v", err)
	}
	bus.expect("submission", `admin/changed private=true {"view": "queue"}`)
	superExec(t, e.db, `INSERT INTO private.ingest_runs (started_at, status) VALUES (now(), 'running')`)
	bus.expect("crawl started", `admin/changed private=true {"view": "crawls"}`)
	superExec(t, e.db, `UPDATE private.ingest_runs SET finished_at = now(), status = 'succeeded'`)
	bus.expect("crawl finished", `admin/changed private=true {"view": "crawls"}`)

	// Who may receive: the SELECT policies, asked as the gateway does
	// (pkg/realtime/auth.go), with realtime.topic() set.
	mayRead := func(c caller, topic string) bool {
		t.Helper()
		tx, err := e.db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		var n int
		err = tx.QueryRow(ctx, `
			WITH ins AS (INSERT INTO realtime.messages (topic, extension, private) VALUES ($1, 'broadcast', true) RETURNING id)
			SELECT count(*) FROM ins`, topic).Scan(&n)
		if err == nil {
			_, err = tx.Exec(ctx, `SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
				set_config('realtime.topic', $3, true)`, c.role, string(c.claims), topic)
		}
		if err == nil {
			err = tx.QueryRow(ctx, `SELECT count(*) FROM realtime.messages WHERE topic = $1 AND extension = 'broadcast'`, topic).Scan(&n)
		}
		if err != nil && !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("%s reading %s: %v", c.name, topic, err)
		}
		return err == nil && n == 1
	}
	for _, tc := range []struct {
		who   caller
		topic string
		want  bool
	}{
		{ma, "listens:" + a, true}, {mb, "listens:" + a, false}, {admin, "listens:" + a, false}, {anon, "listens:" + a, false},
		{ma, "releases", true}, {mb, "releases", true}, {anon, "releases", false},
		{admin, "admin", true}, {ma, "admin", false}, {anon, "admin", false},
	} {
		if got := mayRead(tc.who, tc.topic); got != tc.want {
			t.Errorf("%s may read %s: %v, want %v", tc.who.name, tc.topic, got, tc.want)
		}
	}
}
