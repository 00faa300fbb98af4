package sqlfiles_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// aalCaller is an admin's token at the given assurance level.
func aalCaller(name, id, email, aal string) caller {
	return caller{name: name, role: "authenticated", claims: []byte(fmt.Sprintf(
		`{"sub":%q,"role":"authenticated","aud":"authenticated","email":%q,"aal":%q,"app_metadata":{"role":"admin"}}`,
		id, email, aal))}
}

// addFactor gives the user a TOTP factor with the given status.
func addFactor(t *testing.T, e *env, userID, status string) {
	t.Helper()
	superExec(t, e.db, fmt.Sprintf(`INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at)
		VALUES (gen_random_uuid(), '%s', '%s', 'totp', '%s', now(), now())`, userID, status, status))
}

// Security review H1: an admin with a verified factor is an admin only from
// an aal2 session; from aal1 every admin procedure answers as it answers a
// member, and the audit row records the session's aal.
func TestAdminNeedsSecondFactorOnceEnrolled(t *testing.T) {
	c := setupCatalogue(t)
	makeAdmin(t, c.env, c.aID)
	aal1 := aalCaller("admin aal1", c.aID, "a@example.com", "aal1")
	aal2 := aalCaller("admin aal2", c.aID, "a@example.com", "aal2")
	noAAL := adminCaller("admin without aal", c.aID, "a@example.com")

	// Without a factor aal1 is enough, so admins who never enrolled keep working.
	if !c.isAdmin(t, aal1) || !c.isAdmin(t, noAAL) {
		t.Fatal("an admin without a factor was refused at aal1")
	}
	// An unverified factor (an enrolment never finished) changes nothing.
	addFactor(t, c.env, c.aID, "unverified")
	if !c.isAdmin(t, aal1) {
		t.Error("an unverified factor took admin away at aal1")
	}
	addFactor(t, c.env, c.aID, "verified")
	if c.isAdmin(t, aal1) || c.isAdmin(t, noAAL) {
		t.Error("admin with a verified factor is admin at aal1")
	}
	if !c.isAdmin(t, aal2) {
		t.Error("admin with a verified factor refused at aal2")
	}
	// The review's exact calls, from aal1: each refused as for a member.
	for _, sql := range []string{
		fmt.Sprintf(`SELECT public.admin_set_admin('%s', true)`, c.bID),
		`SELECT count(*) FROM public.admin_members()`,
		`SELECT count(*) FROM public.admin_create_invite(1, 24, 'aal1-made')`,
		`SELECT count(*) FROM public.admin_audit_log(1)`,
	} {
		if _, err := c.exec(context.Background(), aal1, sql); err == nil {
			t.Errorf("aal1 admin ran %s", sql)
		} else {
			requirePgError(t, err, "42501", "Only admins may do this")
		}
	}
	// From aal2 it works, and the audit row says so.
	if err := c.commit(aal2, fmt.Sprintf(`SELECT public.admin_set_admin('%s', true)`, c.bID)); err != nil {
		t.Fatalf("aal2 grant: %v", err)
	}
	var aal string
	if err := c.db.Pool.QueryRow(context.Background(),
		`SELECT detail ->> 'aal' FROM private.admin_audit WHERE action = 'grant_admin' ORDER BY id DESC LIMIT 1`).Scan(&aal); err != nil || aal != "aal2" {
		t.Errorf("audit aal = %q, %v", aal, err)
	}
	// The service role and the owner have no session and stay admins.
	if !c.isAdmin(t, service) {
		t.Error("service_role lost admin")
	}
}

// Security review L2: the queue shows a member their own rows and pending
// ones, not someone else's processed row naming a hidden label; a hidden
// label or release and a missing one give the same refusal.
func TestHiddenLabelsLeakNothing(t *testing.T) {
	e := newEnv(t)
	mal := pgtest.CreateUser(t, e.db.Pool, "mallory@example.com", "password-m")
	sub := pgtest.CreateUser(t, e.db.Pool, "submitter@example.com", "password-s")
	adminID := pgtest.CreateUser(t, e.db.Pool, "root@example.com", "password-r")
	makeAdmin(t, e, adminID)
	superExec(t, e.db, withUsers(`
		INSERT INTO public.labels (id, label_name, label_url) VALUES
		  (1, 'Northern Canopy', 'https://northerncanopy.bandcamp.com'), (2, 'Open', 'https://open.bandcamp.com');
		INSERT INTO public.releases (id, label_id, title, release_url, release_date) VALUES
		  (74, 1, 'Hidden', 'https://northerncanopy.bandcamp.com/album/h', current_date),
		  (75, 2, 'Open', 'https://open.bandcamp.com/album/o', current_date);
		INSERT INTO private.hidden_labels (label_id) VALUES (1);
		INSERT INTO public.labels_to_add (id, label_url, user_id, is_processed, is_valid, label_id) VALUES
		  (1, 'https://northerncanopy.bandcamp.com', :B, true, true, 1),
		  (2, 'https://pending.bandcamp.com', :B, false, false, NULL),
		  (3, 'https://mine.bandcamp.com', :A, true, false, NULL);`, mal, sub))
	m := member("mallory", mal)
	ids := func(c caller, sql string) []int64 {
		t.Helper()
		var out []int64
		if err := e.read(context.Background(), c, func(tx pgx.Tx) error {
			rows, _ := tx.Query(context.Background(), sql)
			var err error
			out, err = pgx.CollectRows(rows, pgx.RowTo[int64])
			return err
		}); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return out
	}
	queue := `SELECT id FROM public.labels_to_add ORDER BY id`
	requireIDs(t, "member's queue", ids(m, queue), []int64{2, 3})
	requireIDs(t, "admin's queue", ids(aalCaller("admin", adminID, "root@example.com", "aal1"), queue), []int64{1, 2, 3})
	requireIDs(t, "a pending URL is still found", ids(m,
		`SELECT id FROM public.labels_to_add WHERE label_url = 'https://pending.bandcamp.com' LIMIT 1`), []int64{2})

	for _, tc := range []struct{ name, hidden, missing string }{
		{"follow", `INSERT INTO public.user_follow_labels (label_id) VALUES (1)`,
			`INSERT INTO public.user_follow_labels (label_id) VALUES (99999)`},
		{"listen", `INSERT INTO public.user_listened_releases (release_id) VALUES (74)`,
			`INSERT INTO public.user_listened_releases (release_id) VALUES (999999)`},
	} {
		_, errHidden := e.exec(context.Background(), m, tc.hidden)
		_, errMissing := e.exec(context.Background(), m, tc.missing)
		if errHidden == nil || errMissing == nil {
			t.Fatalf("%s: hidden %v, missing %v", tc.name, errHidden, errMissing)
		}
		h := requirePgError(t, errHidden, "42501", "row-level security")
		x := requirePgError(t, errMissing, "42501", "row-level security")
		if h.Message != x.Message {
			t.Errorf("%s: hidden %q and missing %q differ", tc.name, h.Message, x.Message)
		}
	}
	// A visible release is still recorded, and an upsert cannot move a
	// listen onto a hidden release.
	if _, err := e.exec(context.Background(), m, `INSERT INTO public.user_listened_releases (release_id) VALUES (75)
		ON CONFLICT (user_id, release_id) DO UPDATE SET created_at = now()`); err != nil {
		t.Errorf("listen on a visible release: %v", err)
	}
	if err := e.commit(m, `INSERT INTO public.user_listened_releases (release_id) VALUES (75)`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.exec(context.Background(), m, `UPDATE public.user_listened_releases SET release_id = 74`); err == nil {
		t.Error("moved a listen onto a hidden release")
	} else {
		requirePgError(t, err, "42501", "row-level security")
	}
	if _, err := e.exec(context.Background(), m, `INSERT INTO public.user_follow_labels (label_id) VALUES (2)`); err != nil {
		t.Errorf("follow of a visible label: %v", err)
	}
}

// Issue #26 item 1, "an aal1 admin gets exactly the answers a member gets":
// every admin_* procedure there is (read from the catalogue, so one added
// later is covered too), called as a member and as an admin with a
// verified factor at aal1, gives the same answer; at aal2 none refuses. The
// policies that ask is_admin() (the submission queue) agree.
func TestAAL1AdminAnswersAsMember(t *testing.T) {
	c := setupCatalogue(t)
	makeAdmin(t, c.env, c.aID)
	addFactor(t, c.env, c.aID, "verified")
	aal1 := aalCaller("admin aal1", c.aID, "a@example.com", "aal1")
	aal2 := aalCaller("admin aal2", c.aID, "a@example.com", "aal2")
	rows, err := c.db.Pool.Query(context.Background(), `
		SELECT format('SELECT * FROM public.%I(%s)', p.proname,
		       coalesce((SELECT string_agg(format('NULL::%s', format_type(a.t, NULL)), ', ' ORDER BY a.n)
		                   FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(t, n)), ''))
		  FROM pg_proc p
		 WHERE p.pronamespace = 'public'::regnamespace AND p.proname LIKE 'admin\_%'
		 ORDER BY p.proname`)
	if err != nil {
		t.Fatal(err)
	}
	calls, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) < 17 {
		t.Fatalf("found %d admin procedures, want at least the 17 of the console: %v", len(calls), calls)
	}
	answer := func(who caller, sql string) string {
		n, err := c.exec(context.Background(), who, sql)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) {
			return pgErr.Code + " " + pgErr.Message
		} else if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%d rows", n)
	}
	for _, sql := range calls {
		m, a1, a2 := answer(c.b, sql), answer(aal1, sql), answer(aal2, sql)
		if a1 != m {
			t.Errorf("%s: aal1 admin got %q, a member %q", sql, a1, m)
		}
		if m != "42501 Only admins may do this" {
			t.Errorf("%s: a member got %q", sql, m)
		}
		if strings.Contains(a2, "Only admins may do this") {
			t.Errorf("%s: aal2 admin refused: %q", sql, a2)
		}
	}
	// The queue: someone else's processed row is for admins at aal2 only.
	superExec(t, c.db, withUsers(`INSERT INTO public.labels_to_add (id, label_url, user_id, is_processed, is_valid, label_id)
		VALUES (901, 'https://done.bandcamp.com', :B, true, true, 1)`, c.aID, c.bID))
	queue := `SELECT id FROM public.labels_to_add WHERE id = 901`
	requireIDs(t, "aal1 admin's queue", c.ids(t, aal1, queue), c.ids(t, member("member a", c.aID), queue))
	requireIDs(t, "aal2 admin's queue", c.ids(t, aal2, queue), []int64{901})
	// The console's live channel (private topic "admin", policy app_live_admin).
	superExec(t, c.db, `INSERT INTO realtime.messages (topic, extension, private) VALUES ('admin', 'broadcast', true)`)
	live := func(who caller) int64 {
		var n int64
		if err := c.read(context.Background(), who, func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), `SELECT set_config('realtime.topic', 'admin', true)`); err != nil {
				return err
			}
			return tx.QueryRow(context.Background(), `SELECT count(*) FROM realtime.messages WHERE topic = 'admin'`).Scan(&n)
		}); err != nil {
			t.Fatalf("live channel as %s: %v", who.name, err)
		}
		return n
	}
	if m, a1, a2 := live(member("member a", c.aID)), live(aal1), live(aal2); m != 0 || a1 != 0 || a2 == 0 {
		t.Errorf("admin channel rows: member %d, aal1 admin %d, aal2 admin %d", m, a1, a2)
	}
}
