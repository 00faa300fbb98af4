package sqlfiles_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// adminCaller is a member whose token carries app_metadata.role = admin.
func adminCaller(name, id, email string) caller {
	return caller{name: name, role: "authenticated", claims: []byte(fmt.Sprintf(
		`{"sub":%q,"role":"authenticated","aud":"authenticated","email":%q,"app_metadata":{"role":"admin"}}`, id, email))}
}

// makeAdmin stores the admin role in the member's app_metadata, as
// `labelbase user admin` and the admin users API do.
func makeAdmin(t *testing.T, e *env, id string) {
	t.Helper()
	if _, err := e.db.Pool.Exec(context.Background(),
		`UPDATE auth.users SET raw_app_meta_data = raw_app_meta_data || '{"role":"admin"}' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
}

// commit runs one statement as c and commits it.
func (e *env) commit(c caller, sql string, args ...any) error {
	return dbpkg.Tx(context.Background(), e.rest, c.role, c.claims, false, func(tx pgx.Tx) error {
		_, err := tx.Exec(context.Background(), sql, args...)
		return err
	})
}

func (e *env) isAdmin(t *testing.T, c caller) bool {
	t.Helper()
	var v bool
	if err := e.read(context.Background(), c, func(tx pgx.Tx) error {
		return tx.QueryRow(context.Background(), `SELECT public.is_admin()`).Scan(&v)
	}); err != nil {
		t.Fatalf("is_admin as %s: %v", c.name, err)
	}
	return v
}

func TestIsAdmin(t *testing.T) {
	e := newEnv(t)
	id := pgtest.CreateUser(t, e.db.Pool, "root@example.com", "password-r")
	adm := adminCaller("admin", id, "root@example.com")
	// A token that claims admin is not enough: the live row must agree.
	if e.isAdmin(t, adm) {
		t.Error("a forged admin claim without the stored role was accepted")
	}
	makeAdmin(t, e, id)
	if !e.isAdmin(t, adm) {
		t.Error("admin refused")
	}
	// The stored role without it in the token is not enough either.
	if e.isAdmin(t, member("member", id)) {
		t.Error("a token without the admin claim was accepted")
	}
	if e.isAdmin(t, anon) {
		t.Error("anon is admin")
	}
	if !e.isAdmin(t, service) {
		t.Error("service_role is not admin")
	}
	// The owner in psql: no role switch, no claims.
	var owner bool
	if err := e.db.Pool.QueryRow(context.Background(), `SELECT public.is_admin()`).Scan(&owner); err != nil || !owner {
		t.Errorf("owner: %v, %v", owner, err)
	}
	// A login that is neither the owner nor a superuser gets nothing from the
	// owner path, though it made no role switch either.
	superExec(t, e.db, `CREATE ROLE admin_test_stranger LOGIN; GRANT USAGE ON SCHEMA public TO admin_test_stranger;
		GRANT EXECUTE ON FUNCTION public.is_admin(), public.admin_request_crawl(bigint) TO admin_test_stranger`)
	conn, err := e.db.Pool.Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var strangerAdmin bool
	var role string
	if _, err := conn.Exec(context.Background(), `SET SESSION AUTHORIZATION admin_test_stranger`); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(context.Background(), `SELECT public.is_admin(), current_setting('role')`).Scan(&strangerAdmin, &role); err != nil ||
		strangerAdmin || role != "none" {
		t.Errorf("a stranger login: is_admin %v, role %q, %v", strangerAdmin, role, err)
	}
	if _, err := conn.Exec(context.Background(), `SELECT public.admin_request_crawl()`); err == nil {
		t.Error("a stranger login requested a crawl")
	} else {
		requirePgError(t, err, "42501", "Only admins may do this")
	}
	if _, err := conn.Exec(context.Background(), `RESET SESSION AUTHORIZATION`); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	// A ban takes the role away at once, before the token expires.
	superExec(t, e.db, fmt.Sprintf(`UPDATE auth.users SET banned_until = now() + interval '1 hour' WHERE id = '%s'`, id))
	if e.isAdmin(t, adm) {
		t.Error("a banned admin is still admin")
	}
}

// Every admin procedure refuses members (42501 from the procedure) and anon
// (no EXECUTE grant), and answers an admin.
func TestAdminProceduresRefuseNonAdmins(t *testing.T) {
	c := setupCatalogue(t)
	makeAdmin(t, c.env, c.aID)
	adm := adminCaller("admin", c.aID, "a@example.com")
	calls := []string{
		`SELECT count(*) FROM public.admin_submissions()`,
		`SELECT count(*) FROM public.admin_crawl_runs()`,
		`SELECT public.admin_crawl_status()`,
		`SELECT count(*) FROM public.admin_label_failures()`,
		`SELECT count(*) FROM public.admin_labels()`,
		`SELECT count(*) FROM public.admin_members()`,
		`SELECT count(*) FROM public.admin_invites()`,
		`SELECT count(*) FROM public.admin_audit_log()`,
		`SELECT public.admin_request_crawl()`,
		`SELECT public.admin_set_label_hidden(3, true)`,
		`SELECT count(*) FROM public.admin_create_invite(1, 24, 'x')`,
		fmt.Sprintf(`SELECT public.admin_set_banned('%s', true)`, c.bID),
		fmt.Sprintf(`SELECT public.admin_set_admin('%s', true)`, c.bID),
	}
	for _, sql := range calls {
		if _, err := c.exec(context.Background(), c.b, sql); err == nil {
			t.Errorf("member ran %s", sql)
		} else {
			requirePgError(t, err, "42501", "Only admins may do this")
		}
		if _, err := c.exec(context.Background(), anon, sql); err == nil {
			t.Errorf("anon ran %s", sql)
		} else {
			requirePgError(t, err, "42501", "permission denied for function")
		}
		if _, err := c.exec(context.Background(), adm, sql); err != nil {
			t.Errorf("admin: %s: %v", sql, err)
		}
		if _, err := c.exec(context.Background(), service, sql); err != nil {
			t.Errorf("service_role: %s: %v", sql, err)
		}
	}
}

func TestAdminHiddenLabelLeavesMemberProcedures(t *testing.T) {
	c := setupCatalogue(t)
	makeAdmin(t, c.env, c.bID)
	adm := adminCaller("admin", c.bID, "b@example.com")
	uid := c.aID
	member := c.a
	type view struct{ name, sql string }
	views := []view{
		{"labels table", `SELECT id FROM public.labels ORDER BY id`},
		{"releases table", `SELECT label_id FROM public.releases ORDER BY id`},
		{"follows table", `SELECT label_id FROM public.user_follow_labels ORDER BY label_id`},
		{"followed", `SELECT id FROM public.get_followed_labels($1, 1, 100)`},
		{"unfollowed", `SELECT id FROM public.get_unfollowed_labels($1, 1, 100)`},
		{"by listen status", `SELECT id FROM public.get_all_filtered_labels_by_listen_status($1, 'all')`},
		{"filtered page", `SELECT id FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 100)`},
		{"feed", `SELECT label_id FROM public.get_latest_releases($1, NULL, 100, 1)`},
		{"feed of given labels", `SELECT label_id FROM public.get_latest_releases($1, '{1,2,3,4,5,6,7,9}', 100, 1)`},
		{"explore", `SELECT label_id FROM public.get_random_releases($1, NULL, NULL, 100, NULL, 36500)`},
		{"per label", `SELECT label_id FROM public.get_latest_releases_per_label('{1,2,3,4,5,6,7,9}', 10)`},
	}
	counts := []string{
		`SELECT public.count_followed_labels($1)`, `SELECT public.count_unfollowed_labels($1)`,
		`SELECT public.count_filtered_labels_by_listen_status($1, 'all')`,
	}
	args := func(sql string) []any {
		if strings.Contains(sql, "$1") {
			return []any{uid}
		}
		return nil
	}
	before := map[string][]int64{}
	for _, v := range views {
		got := c.ids(t, member, v.sql, args(v.sql)...)
		if !slices.Contains(got, 1) && v.name != "unfollowed" {
			t.Fatalf("%s shows no label 1 before hiding: %v", v.name, got)
		}
		before[v.name] = got
	}
	countBefore := map[string]int64{}
	for _, q := range counts {
		countBefore[q] = c.count(t, member, q, uid)
	}
	// Label 1 is followed by A and has releases; label 3 is not followed by A.
	for _, id := range []int{1, 3} {
		if err := c.commit(adm, `SELECT public.admin_set_label_hidden($1, true)`, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range views {
		got := c.ids(t, member, v.sql, args(v.sql)...)
		want := []int64{}
		for _, id := range before[v.name] {
			if id != 1 && id != 3 {
				want = append(want, id)
			}
		}
		if v.name == "explore" {
			got, want = sorted(got), sorted(want)
		}
		requireIDs(t, v.name+" after hiding", got, want)
	}
	if got := c.count(t, member, counts[0], uid); got != countBefore[counts[0]]-1 {
		t.Errorf("count_followed_labels = %d, want %d", got, countBefore[counts[0]]-1)
	}
	if got := c.count(t, member, counts[1], uid); got != countBefore[counts[1]]-1 {
		t.Errorf("count_unfollowed_labels = %d, want %d", got, countBefore[counts[1]]-1)
	}
	if got := c.count(t, member, counts[2], uid); got != countBefore[counts[2]]-1 {
		t.Errorf("count_filtered_labels_by_listen_status = %d, want %d", got, countBefore[counts[2]]-1)
	}
	// A hidden label cannot be followed.
	if err := c.commit(c.b, `INSERT INTO public.user_follow_labels (label_id) VALUES (3)`); err == nil {
		t.Error("followed a hidden label")
	} else {
		requirePgError(t, err, "42501", "row-level security")
	}
	// Members may see which ids are hidden (the policies test rows against
	// them as the caller), but not who hid them, nor change the list.
	requireIDs(t, "hidden ids a member sees", c.ids(t, member, `SELECT label_id FROM private.hidden_labels ORDER BY label_id`), []int64{1, 3})
	if err := c.commit(member, `SELECT hidden_by FROM private.hidden_labels`); err == nil {
		t.Error("a member read who hid a label")
	} else {
		requirePgError(t, err, "42501", "permission denied")
	}
	if err := c.commit(member, `DELETE FROM private.hidden_labels WHERE label_id = 1`); err == nil {
		t.Error("a member unhid a label")
	} else {
		requirePgError(t, err, "42501", "permission denied")
	}
	// The admin's list still has them, flagged.
	hidden := c.ids(t, adm, `SELECT id FROM public.admin_labels() WHERE hidden ORDER BY id`)
	requireIDs(t, "hidden in admin_labels", hidden, []int64{1, 3})
	// Unhiding brings label 1 back with A's follow.
	if err := c.commit(adm, `SELECT public.admin_set_label_hidden(1, false)`); err != nil {
		t.Fatal(err)
	}
	if got := c.ids(t, member, views[3].sql, uid); !slices.Contains(got, 1) {
		t.Errorf("followed after unhiding: %v", got)
	}
	// Bad input.
	if err := c.commit(adm, `SELECT public.admin_set_label_hidden(999, true)`); err == nil {
		t.Error("hid a label that does not exist")
	} else {
		requirePgError(t, err, "PT404", "No label 999")
	}
	if err := c.commit(adm, `SELECT public.admin_set_label_hidden(1, NULL)`); err == nil {
		t.Error("null p_hidden accepted")
	} else {
		requirePgError(t, err, "22023", "p_hidden")
	}
	audit := c.ids(t, adm, `SELECT count(*) FROM public.admin_audit_log() WHERE action IN ('hide_label', 'unhide_label')`)
	requireIDs(t, "audit rows", audit, []int64{3})
}

func TestAdminSubmissionQueue(t *testing.T) {
	e := newEnv(t)
	m := pgtest.CreateUser(t, e.db.Pool, "m@example.com", "password-m")
	a := pgtest.CreateUser(t, e.db.Pool, "admin@example.com", "password-a")
	makeAdmin(t, e, a)
	adm := adminCaller("admin", a, "admin@example.com")
	superExec(t, e.db, fmt.Sprintf(`
		INSERT INTO public.labels (id, label_name, label_url) VALUES (1, 'Done', 'https://done.bandcamp.com');
		INSERT INTO public.labels_to_add (id, label_url, is_processed, is_valid, user_id, error, attempts, label_id) VALUES
		  (1, 'https://pending.bandcamp.com', false, false, '%[1]s', NULL, 1, NULL),
		  (2, 'https://nope.example.com', true, false, '%[1]s', 'not a Bandcamp label', 1, NULL),
		  (3, 'https://done.bandcamp.com', true, true, '%[1]s', NULL, 1, 1);`, m))
	type sub struct {
		id     int64
		status string
		reason *string
		email  *string
	}
	list := func(status any) []sub {
		var out []sub
		if err := e.read(context.Background(), adm, func(tx pgx.Tx) error {
			rows, _ := tx.Query(context.Background(),
				`SELECT id, status, reason, submitter_email FROM public.admin_submissions($1) ORDER BY id`, status)
			var err error
			out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (sub, error) {
				var s sub
				return s, r.Scan(&s.id, &s.status, &s.reason, &s.email)
			})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := list(nil)
	if len(all) != 3 || all[0].status != "pending" || all[1].status != "refused" || all[2].status != "done" ||
		*all[1].reason != "not a Bandcamp label" || *all[0].email != "m@example.com" {
		t.Fatalf("admin_submissions() = %+v", all)
	}
	for status, want := range map[string]int64{"pending": 1, "refused": 2, "done": 3} {
		if got := list(status); len(got) != 1 || got[0].id != want {
			t.Errorf("admin_submissions(%s) = %+v", status, got)
		}
	}
	if _, err := e.exec(context.Background(), adm, `SELECT * FROM public.admin_submissions('bogus')`); err == nil {
		t.Error("a bad status was accepted")
	} else {
		requirePgError(t, err, "22023", "p_status")
	}

	// Reject the pending one with a reason; the member's view shows it processed, not valid.
	if err := e.commit(adm, `SELECT public.admin_reject_submission(1, '  spam  ')`); err != nil {
		t.Fatal(err)
	}
	if got := list("refused"); len(got) != 2 || *got[0].reason != "spam" {
		t.Errorf("refused after reject: %+v", got)
	}
	for _, tc := range []struct {
		sql, code, msg string
	}{
		{`SELECT public.admin_reject_submission(2, '')`, "22023", "reason"},
		{`SELECT public.admin_reject_submission(2, NULL)`, "22023", "reason"},
		{`SELECT public.admin_reject_submission(3, 'late')`, "22023", "added as a label already"},
		{`SELECT public.admin_reject_submission(99, 'x')`, "PT404", "No submission 99"},
		{`SELECT public.admin_retry_submission(3)`, "22023", "added as a label already"},
		{`SELECT public.admin_retry_submission(99)`, "PT404", "No submission 99"},
	} {
		if _, err := e.exec(context.Background(), adm, tc.sql); err == nil {
			t.Errorf("%s succeeded", tc.sql)
		} else {
			requirePgError(t, err, tc.code, tc.msg)
		}
	}
	// Retry puts it back as new and asks for a pass.
	if err := e.commit(adm, `SELECT public.admin_retry_submission(2)`); err != nil {
		t.Fatal(err)
	}
	var processed bool
	var attempts, requests int
	if err := e.db.Pool.QueryRow(context.Background(), `
		SELECT is_processed, attempts, (SELECT count(*) FROM private.crawl_requests WHERE picked_up_at IS NULL)
		  FROM public.labels_to_add WHERE id = 2`).Scan(&processed, &attempts, &requests); err != nil {
		t.Fatal(err)
	}
	if processed || attempts != 0 || requests != 1 {
		t.Errorf("after retry: processed %v, attempts %d, open requests %d", processed, attempts, requests)
	}
	var actions []string
	rows, _ := e.db.Pool.Query(context.Background(), `SELECT action || ' ' || target || ' ' || actor FROM private.admin_audit ORDER BY id`)
	actions, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(actions) != 2 || actions[0] != "reject_submission 1 admin@example.com" ||
		actions[1] != "retry_submission 2 admin@example.com" {
		t.Errorf("audit: %q, %v", actions, err)
	}
}

func TestAdminCrawls(t *testing.T) {
	e := newEnv(t)
	superExec(t, e.db, `
		INSERT INTO public.labels (id, label_name, label_url) VALUES (1, 'Broken', 'https://broken.bandcamp.com');
		INSERT INTO private.ingest_runs (started_at, finished_at, status, stop_reason, network_failures, parse_failures, error)
		VALUES (now() - interval '2 hours', now() - interval '2 hours', 'succeeded', NULL, 0, 1, NULL),
		       (now() - interval '1 hour', now() - interval '1 hour', 'failed', 'all_failed', 3, 0, 'all_failed');
		INSERT INTO private.label_parse_failures (label_id, url, reason) VALUES (1, 'https://broken.bandcamp.com/music', 'no release list');
		INSERT INTO private.crawl_schedule (next_at) VALUES ('2030-01-01T03:00:00Z');`)
	ctx := context.Background()
	var stop string
	var netFail, n int
	if err := e.db.Pool.QueryRow(ctx, `SELECT stop_reason, network_failures FROM public.admin_crawl_runs(1)`).Scan(&stop, &netFail); err != nil ||
		stop != "all_failed" || netFail != 3 {
		t.Errorf("newest run: %q %d %v", stop, netFail, err)
	}
	if err := e.db.Pool.QueryRow(ctx, `SELECT count(*) FROM public.admin_crawl_runs()`).Scan(&n); err != nil || n != 2 {
		t.Errorf("runs: %d %v", n, err)
	}
	if _, err := e.db.Pool.Exec(ctx, `SELECT public.admin_crawl_runs(0)`); err == nil {
		t.Error("p_limit 0 accepted")
	} else {
		requirePgError(t, err, "22023", "p_limit")
	}
	var reason string
	if err := e.db.Pool.QueryRow(ctx, `SELECT label_name || ': ' || reason FROM public.admin_label_failures()`).Scan(&reason); err != nil ||
		reason != "Broken: no release list" {
		t.Errorf("failures: %q %v", reason, err)
	}
	// "Crawl now" for a label and for a pass, from psql as the owner.
	var id1, id2 int64
	if err := e.db.Pool.QueryRow(ctx, `SELECT public.admin_request_crawl(1)`).Scan(&id1); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Pool.QueryRow(ctx, `SELECT public.admin_request_crawl()`).Scan(&id2); err != nil || id2 <= id1 {
		t.Fatal(id2, err)
	}
	if _, err := e.db.Pool.Exec(ctx, `SELECT public.admin_request_crawl(42)`); err == nil {
		t.Error("a crawl of a missing label was requested")
	} else {
		requirePgError(t, err, "PT404", "No label 42")
	}
	var status map[string]any
	if err := e.db.Pool.QueryRow(ctx, `SELECT public.admin_crawl_status()`).Scan(&status); err != nil {
		t.Fatal(err)
	}
	if status["open_requests"] != float64(2) || status["next_pass_at"] == nil || status["running"] != false {
		t.Errorf("status: %v", status)
	}
	var actor string
	if err := e.db.Pool.QueryRow(ctx, `SELECT actor FROM private.admin_audit WHERE action = 'request_crawl' LIMIT 1`).Scan(&actor); err != nil ||
		len(actor) < 7 || actor[:6] != "owner:" {
		t.Errorf("owner's audit actor: %q %v", actor, err)
	}
}

func TestAdminMembersAndInvites(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := pgtest.CreateUser(t, e.db.Pool, "admin@example.com", "password-a")
	m := pgtest.CreateUser(t, e.db.Pool, "member@example.com", "password-m")
	makeAdmin(t, e, a)
	adm := adminCaller("admin", a, "admin@example.com")

	// Create an invite through the procedure; a sign-up with it works once.
	var code string
	var expires *string
	err := dbpkg.Tx(ctx, e.rest, adm.role, adm.claims, false, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT code, expires_at::text FROM public.admin_create_invite(1, 48, ' for Jo ')`).Scan(&code, &expires)
	})
	if err != nil || len(code) != 29 || expires == nil {
		t.Fatalf("create invite: %q %v %v", code, expires, err)
	}
	if err := signUp(ctx, e.db.Pool, "jo@example.com", withCode(code)); err != nil {
		t.Fatalf("sign-up with the admin's code: %v", err)
	}
	if err := signUp(ctx, e.db.Pool, "jo2@example.com", withCode(code)); err == nil {
		t.Fatal("a single-use code was used twice")
	}
	var status, note string
	var usedBy []string
	var inviteID int64
	if err := e.db.Pool.QueryRow(ctx, `SELECT id, status, note, used_by FROM public.admin_invites() WHERE code = $1`, code).
		Scan(&inviteID, &status, &note, &usedBy); err != nil || status != "used" || note != "for Jo" ||
		len(usedBy) != 1 || usedBy[0] != "jo@example.com" {
		t.Errorf("invite: %s %q %v %v", status, note, usedBy, err)
	}
	var joCode string
	if err := e.db.Pool.QueryRow(ctx, `SELECT invite_code FROM public.admin_members('JO@') `).Scan(&joCode); err != nil || joCode != code {
		t.Errorf("member's invite: %q %v", joCode, err)
	}
	// Revoke a fresh one; it no longer signs anyone up.
	var code2 string
	var id2 int64
	if err := e.db.Pool.QueryRow(ctx, `SELECT id, code FROM public.admin_create_invite(5)`).Scan(&id2, &code2); err != nil {
		t.Fatal(err)
	}
	if err := e.commit(adm, `SELECT public.admin_revoke_invite($1)`, id2); err != nil {
		t.Fatal(err)
	}
	requireRefused(t, signUp(ctx, e.db.Pool, "late@example.com", withCode(code2)))
	for _, tc := range []struct{ sql, code, msg string }{
		{`SELECT public.admin_revoke_invite(0)`, "PT404", "No invite 0"},
		{`SELECT * FROM public.admin_create_invite(0)`, "22023", "p_max_uses"},
		{`SELECT * FROM public.admin_create_invite(1, 0)`, "22023", "p_expires_in_hours"},
		{`SELECT * FROM public.admin_create_invite(1, NULL, repeat('x', 201))`, "22023", "note"},
	} {
		if _, err := e.exec(ctx, adm, tc.sql); err == nil {
			t.Errorf("%s succeeded", tc.sql)
		} else {
			requirePgError(t, err, tc.code, tc.msg)
		}
	}

	// Ban, make admin, and their refusals.
	if err := e.commit(adm, `SELECT public.admin_set_banned($1, true)`, m); err != nil {
		t.Fatal(err)
	}
	if err := e.commit(adm, `SELECT public.admin_set_admin($1, true)`, m); err != nil {
		t.Fatal(err)
	}
	var banned, isAdmin bool
	if err := e.db.Pool.QueryRow(ctx, `SELECT banned, is_admin FROM public.admin_members('member@')`).Scan(&banned, &isAdmin); err != nil ||
		!banned || !isAdmin {
		t.Errorf("member after ban and promotion: banned %v admin %v %v", banned, isAdmin, err)
	}
	if e.isAdmin(t, adminCaller("m", m, "member@example.com")) {
		t.Error("a banned member with the admin role is admin")
	}
	if err := e.commit(adm, `SELECT public.admin_set_banned($1, false)`, m); err != nil {
		t.Fatal(err)
	}
	if err := e.commit(adm, `SELECT public.admin_set_admin($1, false)`, m); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Pool.QueryRow(ctx, `SELECT banned, is_admin FROM public.admin_members('member@')`).Scan(&banned, &isAdmin); err != nil ||
		banned || isAdmin {
		t.Errorf("member after unban and revoke: banned %v admin %v %v", banned, isAdmin, err)
	}
	for _, tc := range []struct {
		sql  string
		arg  any
		code string
		msg  string
	}{
		{`SELECT public.admin_set_banned($1, true)`, a, "22023", "cannot ban themselves"},
		{`SELECT public.admin_set_admin($1, false)`, a, "22023", "themselves"},
		{`SELECT public.admin_set_banned($1, true)`, "00000000-0000-0000-0000-000000000000", "PT404", "No member"},
		{`SELECT public.admin_set_admin($1, NULL)`, m, "22023", "p_admin"},
	} {
		if _, err := e.exec(ctx, adm, tc.sql, tc.arg); err == nil {
			t.Errorf("%s %v succeeded", tc.sql, tc.arg)
		} else {
			requirePgError(t, err, tc.code, tc.msg)
		}
	}
	var audited int
	if err := e.db.Pool.QueryRow(ctx, `SELECT count(*) FROM private.admin_audit
		WHERE action IN ('create_invite', 'revoke_invite', 'ban', 'unban', 'grant_admin', 'revoke_admin')`).Scan(&audited); err != nil || audited != 7 {
		t.Errorf("audit rows: %d %v", audited, err)
	}
}

// admin_members returns at most p_limit members (default 100, 1–500),
// newest first; the search still finds a member the cut left out.
func TestAdminMembersAreCapped(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		id := pgtest.CreateUser(t, e.db.Pool, fmt.Sprintf("capped-%d@example.com", i), "password-c")
		// capped-5 is the newest.
		if _, err := e.db.Pool.Exec(ctx, `UPDATE auth.users SET created_at = now() - make_interval(days => 10 - $2::int) WHERE id = $1`, id, i); err != nil {
			t.Fatal(err)
		}
	}
	emails := func(sql string) []string {
		t.Helper()
		rows, err := e.db.Pool.Query(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return got
	}
	if got, want := emails(`SELECT email FROM public.admin_members(NULL, 3) WHERE email LIKE 'capped-%'`),
		[]string{"capped-5@example.com", "capped-4@example.com", "capped-3@example.com"}; !slices.Equal(got, want) {
		t.Errorf("admin_members(NULL, 3) = %v, want the three newest %v", got, want)
	}
	if got := emails(`SELECT email FROM public.admin_members('capped-1', 1)`); !slices.Equal(got, []string{"capped-1@example.com"}) {
		t.Errorf("the search for the oldest = %v", got)
	}
	if got := emails(`SELECT email FROM public.admin_members() WHERE email LIKE 'capped-%'`); len(got) != 5 {
		t.Errorf("the default limit returned %d of 5 members", len(got))
	}
	for _, limit := range []int{0, 501} {
		_, err := e.db.Pool.Exec(ctx, `SELECT * FROM public.admin_members(NULL, $1)`, limit)
		requirePgError(t, err, "22023", "p_limit must be between 1 and 500")
	}
}
