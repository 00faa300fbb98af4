package sqlfiles_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// outcome is what one statement must do: succeed with n rows returned or
// affected, or fail with SQLSTATE code and a message containing msg.
type outcome struct {
	n    int64
	code string
	msg  string
}

func rows(n int64) outcome { return outcome{n: n} }

var (
	// denied is a missing table or column privilege.
	denied = outcome{code: "42501", msg: "permission denied"}
	// rlsViolation is a row refused by a policy's WITH CHECK.
	rlsViolation = outcome{code: "42501", msg: "new row violates row-level security policy"}
)

// rlsFixture is two members, A and B, each following one label, having
// listened to one release, having submitted one URL and having redeemed
// one invite code.
type rlsFixture struct {
	*env
	a, b string
}

func setupRLS(t *testing.T) *rlsFixture {
	t.Helper()
	e := newEnv(t)
	a := pgtest.CreateUser(t, e.db.Pool, "a@example.com", "password-a")
	b := pgtest.CreateUser(t, e.db.Pool, "b@example.com", "password-b")
	superExec(t, e.db, withUsers(`
		INSERT INTO public.labels (id, label_name, label_url) VALUES
		  (1, 'Alpha', 'https://alpha.bandcamp.com'),
		  (2, 'Beta', 'https://beta.bandcamp.com');
		INSERT INTO public.releases (id, label_id, title, release_url, release_date) VALUES
		  (10, 1, 'A1', 'https://alpha.bandcamp.com/album/a1', current_date - 1),
		  (11, 1, 'A2', 'https://alpha.bandcamp.com/album/a2', current_date - 2),
		  (20, 2, 'B1', 'https://beta.bandcamp.com/album/b1', current_date - 3);
		INSERT INTO public.user_follow_labels (user_id, label_id) VALUES (:A, 1), (:B, 2);
		INSERT INTO public.user_listened_releases (user_id, release_id) VALUES (:A, 10), (:B, 20);
		INSERT INTO public.labels_to_add (id, label_url, user_id) VALUES
		  (100, 'https://queued.bandcamp.com', :A),
		  (101, 'https://other.bandcamp.com', :B);`, a, b))
	return &rlsFixture{env: e, a: a, b: b}
}

// TestRLSMatrix runs every app table × operation × caller and asserts the
// exact outcome. The cases share one database and each runs in its own
// rolled-back transaction. They run one after another: parallel writers
// would queue on each other's row locks and could deadlock on the cascades.
func TestRLSMatrix(t *testing.T) {
	t.Parallel()
	f := setupRLS(t)
	callers := map[string]caller{"anon": anon, "A": member("A", f.a), "B": member("B", f.b), "service": service}

	type tc struct {
		table, op, who, does string
		sql                  string
		want                 outcome
	}
	// same expands one statement to several callers with the same outcome.
	same := func(table, op, does, sql string, want outcome, whos ...string) []tc {
		var out []tc
		for _, who := range whos {
			out = append(out, tc{table, op, who, does, sql, want})
		}
		return out
	}
	var cases []tc
	add := func(c ...tc) { cases = append(cases, c...) }

	// The catalogue: members read it, nobody but service_role writes it.
	for _, tbl := range []struct {
		name, insert, del string
		count             int64
	}{
		{"labels", `INSERT INTO public.labels (id, label_name, label_url) VALUES (3, 'New', 'https://new.bandcamp.com')`,
			`DELETE FROM public.labels WHERE id = 2`, 2},
		{"releases", `INSERT INTO public.releases (id, label_id, title, release_url) VALUES (30, 1, 'New', 'https://alpha.bandcamp.com/album/new')`,
			`DELETE FROM public.releases WHERE id = 20`, 3},
	} {
		sel := `SELECT id FROM public.` + tbl.name
		upd := `UPDATE public.` + tbl.name + ` SET updated_at = now()`
		add(tc{tbl.name, "select", "anon", "anon cannot read the catalogue", sel, denied})
		add(same(tbl.name, "select", "members read everything", sel, rows(tbl.count), "A", "B")...)
		add(tc{tbl.name, "select", "service", "reads everything", sel, rows(tbl.count)})
		add(same(tbl.name, "insert", "cannot write the catalogue", tbl.insert, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "insert", "service", "writes the catalogue", tbl.insert, rows(1)})
		add(same(tbl.name, "update", "cannot write the catalogue", upd, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "update", "service", "writes the catalogue", upd, rows(tbl.count)})
		add(same(tbl.name, "delete", "cannot write the catalogue", tbl.del, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "delete", "service", "writes the catalogue", tbl.del, rows(1)})
	}

	const follows = "user_follow_labels"
	add(
		tc{follows, "select", "anon", "reads nothing", `SELECT label_id FROM public.user_follow_labels`, denied},
		tc{follows, "select", "A", "sees only own follows", `SELECT label_id FROM public.user_follow_labels`, rows(1)},
		tc{follows, "select", "B", "sees only own follows", `SELECT label_id FROM public.user_follow_labels`, rows(1)},
		tc{follows, "select", "B", "cannot see A's follows", `SELECT label_id FROM public.user_follow_labels WHERE user_id = :A`, rows(0)},
		tc{follows, "select", "service", "sees all follows", `SELECT label_id FROM public.user_follow_labels`, rows(2)},
		tc{follows, "insert", "anon", "cannot follow", `INSERT INTO public.user_follow_labels (user_id, label_id) VALUES (:A, 2)`, denied},
		tc{follows, "insert", "A", "follows with own user_id", `INSERT INTO public.user_follow_labels (user_id, label_id) VALUES (:A, 2)`, rows(1)},
		tc{follows, "insert", "A", "user_id defaults to the caller", `INSERT INTO public.user_follow_labels (label_id) VALUES (2)`, rows(1)},
		tc{follows, "insert", "B", "cannot follow with A's user_id", `INSERT INTO public.user_follow_labels (user_id, label_id) VALUES (:A, 2)`, rlsViolation},
		tc{follows, "insert", "service", "follows for anyone", `INSERT INTO public.user_follow_labels (user_id, label_id) VALUES (:B, 1)`, rows(1)},
		tc{follows, "update", "anon", "cannot update", `UPDATE public.user_follow_labels SET label_id = 2 WHERE user_id = :A`, denied},
		tc{follows, "update", "A", "follows are never updated, even own", `UPDATE public.user_follow_labels SET label_id = 2 WHERE user_id = :A`, denied},
		tc{follows, "update", "B", "cannot update A's follows", `UPDATE public.user_follow_labels SET label_id = 1 WHERE user_id = :A`, denied},
		tc{follows, "update", "service", "updates any follow", `UPDATE public.user_follow_labels SET label_id = 2 WHERE user_id = :A`, rows(1)},
		tc{follows, "delete", "anon", "cannot unfollow", `DELETE FROM public.user_follow_labels`, denied},
		tc{follows, "delete", "A", "unfollows own", `DELETE FROM public.user_follow_labels WHERE user_id = :A AND label_id = 1`, rows(1)},
		tc{follows, "delete", "B", "cannot delete A's follows", `DELETE FROM public.user_follow_labels WHERE user_id = :A`, rows(0)},
		tc{follows, "delete", "B", "an unfiltered delete reaches only own rows", `DELETE FROM public.user_follow_labels`, rows(1)},
		tc{follows, "delete", "service", "deletes any follow", `DELETE FROM public.user_follow_labels`, rows(2)},
	)

	const listens = "user_listened_releases"
	const upsert = `INSERT INTO public.user_listened_releases (user_id, release_id) VALUES (%s, %d)
		ON CONFLICT (user_id, release_id) DO UPDATE SET user_id = excluded.user_id, release_id = excluded.release_id`
	add(
		tc{listens, "select", "anon", "reads nothing", `SELECT release_id FROM public.user_listened_releases`, denied},
		tc{listens, "select", "A", "sees only own listens", `SELECT release_id FROM public.user_listened_releases`, rows(1)},
		tc{listens, "select", "B", "sees only own listens", `SELECT release_id FROM public.user_listened_releases`, rows(1)},
		tc{listens, "select", "B", "cannot see A's listens", `SELECT release_id FROM public.user_listened_releases WHERE user_id = :A`, rows(0)},
		tc{listens, "select", "service", "sees all listens", `SELECT release_id FROM public.user_listened_releases`, rows(2)},
		tc{listens, "insert", "anon", "cannot listen", `INSERT INTO public.user_listened_releases (user_id, release_id) VALUES (:A, 11)`, denied},
		tc{listens, "insert", "A", "marks own listen", `INSERT INTO public.user_listened_releases (user_id, release_id) VALUES (:A, 11)`, rows(1)},
		tc{listens, "insert", "A", "user_id defaults to the caller", `INSERT INTO public.user_listened_releases (release_id) VALUES (11)`, rows(1)},
		tc{listens, "insert", "B", "cannot insert with A's user_id", `INSERT INTO public.user_listened_releases (user_id, release_id) VALUES (:A, 11)`, rlsViolation},
		tc{listens, "insert", "service", "inserts for anyone", `INSERT INTO public.user_listened_releases (user_id, release_id) VALUES (:B, 10)`, rows(1)},
		tc{listens, "upsert", "anon", "cannot upsert", fmt.Sprintf(upsert, ":A", 10), denied},
		tc{listens, "upsert", "A", "upserts an existing own listen", fmt.Sprintf(upsert, ":A", 10), rows(1)},
		tc{listens, "upsert", "A", "upserts a new own listen", fmt.Sprintf(upsert, ":A", 11), rows(1)},
		tc{listens, "upsert", "B", "cannot upsert onto A's listen", fmt.Sprintf(upsert, ":A", 10), rlsViolation},
		tc{listens, "upsert", "B", "cannot upsert a new listen for A", fmt.Sprintf(upsert, ":A", 11), rlsViolation},
		tc{listens, "update", "anon", "cannot update", `UPDATE public.user_listened_releases SET created_at = now()`, denied},
		tc{listens, "update", "A", "updates own listen", `UPDATE public.user_listened_releases SET created_at = now() WHERE user_id = :A`, rows(1)},
		tc{listens, "update", "A", "cannot hand a listen to B", `UPDATE public.user_listened_releases SET user_id = :B WHERE user_id = :A`, rlsViolation},
		tc{listens, "update", "B", "cannot update A's listens", `UPDATE public.user_listened_releases SET created_at = now() WHERE user_id = :A`, rows(0)},
		tc{listens, "update", "B", "an unfiltered update reaches only own rows", `UPDATE public.user_listened_releases SET created_at = now()`, rows(1)},
		tc{listens, "update", "service", "updates any listen", `UPDATE public.user_listened_releases SET created_at = now()`, rows(2)},
		tc{listens, "delete", "anon", "cannot delete", `DELETE FROM public.user_listened_releases`, denied},
		tc{listens, "delete", "A", "unmarks own listen", `DELETE FROM public.user_listened_releases WHERE user_id = :A AND release_id = 10`, rows(1)},
		tc{listens, "delete", "B", "cannot delete A's listens", `DELETE FROM public.user_listened_releases WHERE user_id = :A`, rows(0)},
		tc{listens, "delete", "service", "deletes any listen", `DELETE FROM public.user_listened_releases`, rows(2)},
	)

	const queue = "labels_to_add"
	const inQueue = `SELECT id FROM public.labels_to_add WHERE label_url = 'https://queued.bandcamp.com' LIMIT 1`
	const submit = `INSERT INTO public.labels_to_add (label_url, is_processed, is_valid, user_id)
		VALUES ('https://new.bandcamp.com', %s, %s, %s) RETURNING id`
	add(
		tc{queue, "select", "anon", "cannot ask whether a URL is queued", inQueue, denied},
		tc{queue, "select", "A", "asks whether own URL is queued", inQueue, rows(1)},
		tc{queue, "select", "B", "sees that A's URL is queued", inQueue, rows(1)},
		tc{queue, "select", "A", "reads the public columns of every row",
			`SELECT id, label_url, is_processed, is_valid, created_at FROM public.labels_to_add`, rows(2)},
		tc{queue, "select", "A", "cannot read the submitter", `SELECT user_id FROM public.labels_to_add`, denied},
		tc{queue, "select", "B", "cannot read whole rows", `SELECT * FROM public.labels_to_add`, denied},
		tc{queue, "select", "B", "cannot filter by submitter", `SELECT id FROM public.labels_to_add WHERE user_id = :A`, denied},
		tc{queue, "select", "service", "reads the submitter", `SELECT user_id FROM public.labels_to_add`, rows(2)},
		tc{queue, "insert", "anon", "cannot submit", fmt.Sprintf(submit, "false", "false", "NULL"), denied},
		tc{queue, "insert", "A", "submits as the client does", fmt.Sprintf(submit, "false", "false", ":A"), rows(1)},
		tc{queue, "insert", "A", "defaults make a valid submission",
			`INSERT INTO public.labels_to_add (label_url) VALUES ('https://new.bandcamp.com')`, rows(1)},
		tc{queue, "insert", "A", "cannot submit as processed", fmt.Sprintf(submit, "true", "false", ":A"), rlsViolation},
		tc{queue, "insert", "A", "cannot submit as valid", fmt.Sprintf(submit, "false", "true", ":A"), rlsViolation},
		tc{queue, "insert", "A", "cannot submit without a user_id", fmt.Sprintf(submit, "false", "false", "NULL"), rlsViolation},
		tc{queue, "insert", "B", "cannot submit with A's user_id", fmt.Sprintf(submit, "false", "false", ":A"), rlsViolation},
		tc{queue, "insert", "A", "cannot set the worker's columns",
			`INSERT INTO public.labels_to_add (label_url, error) VALUES ('https://new.bandcamp.com', 'x')`, denied},
		tc{queue, "insert", "A", "cannot read the submitter back",
			`INSERT INTO public.labels_to_add (label_url) VALUES ('https://new.bandcamp.com') RETURNING user_id`, denied},
		tc{queue, "insert", "service", "inserts processed rows", fmt.Sprintf(submit, "true", "true", "NULL"), rows(1)},
		tc{queue, "update", "anon", "cannot update", `UPDATE public.labels_to_add SET is_processed = true WHERE id = 100`, denied},
		tc{queue, "update", "A", "cannot update even own submission", `UPDATE public.labels_to_add SET is_processed = true WHERE id = 100`, denied},
		tc{queue, "update", "B", "cannot update A's submission", `UPDATE public.labels_to_add SET is_valid = true WHERE id = 100`, denied},
		tc{queue, "update", "service", "processes the queue", `UPDATE public.labels_to_add SET is_processed = true, processed_at = now()`, rows(2)},
		tc{queue, "delete", "anon", "cannot delete", `DELETE FROM public.labels_to_add WHERE id = 100`, denied},
		tc{queue, "delete", "A", "cannot delete even own submission", `DELETE FROM public.labels_to_add WHERE id = 100`, denied},
		tc{queue, "delete", "B", "cannot delete A's submission", `DELETE FROM public.labels_to_add WHERE id = 100`, denied},
		tc{queue, "delete", "service", "deletes from the queue", `DELETE FROM public.labels_to_add`, rows(2)},
	)

	// Invite codes and redemptions are never visible to clients at all.
	for _, tbl := range []struct{ name, sel, ins, upd, del string }{
		{"invite_codes", `SELECT code FROM public.invite_codes`,
			`INSERT INTO public.invite_codes (code) VALUES ('brand-new-code')`,
			`UPDATE public.invite_codes SET revoked_at = now()`,
			`DELETE FROM public.invite_codes`},
		{"invite_redemptions", `SELECT user_id FROM public.invite_redemptions`,
			`INSERT INTO public.invite_redemptions (invite_id, user_id)
			   SELECT id, :A FROM public.invite_codes
			    WHERE id NOT IN (SELECT invite_id FROM public.invite_redemptions WHERE user_id = :A)`,
			`UPDATE public.invite_redemptions SET redeemed_at = now()`,
			`DELETE FROM public.invite_redemptions`},
	} {
		// Each member's sign-up created and redeemed one code.
		add(same(tbl.name, "select", "never readable by clients", tbl.sel, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "select", "service", "reads all", tbl.sel, rows(2)})
		add(same(tbl.name, "insert", "never writable by clients", tbl.ins, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "insert", "service", "writes", tbl.ins, rows(1)})
		add(same(tbl.name, "update", "never writable by clients", tbl.upd, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "update", "service", "writes", tbl.upd, rows(2)})
		add(same(tbl.name, "delete", "never writable by clients", tbl.del, denied, "anon", "A", "B")...)
		add(tc{tbl.name, "delete", "service", "writes", tbl.del, rows(2)})
	}

	// The auth schema is reachable (for auth.uid()) but its tables are not.
	add(same("auth.users", "select", "cannot read accounts", `SELECT id FROM auth.users`, denied, "anon", "A", "B")...)
	add(tc{"auth.users", "select", "service", "manages accounts", `SELECT id FROM auth.users`, rows(2)})

	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.table+"/"+c.op+"/"+c.who+"/"+c.does, func(t *testing.T) {
			n, err := f.exec(ctx, callers[c.who], withUsers(c.sql, f.a, f.b))
			if c.want.code != "" {
				requirePgError(t, err, c.want.code, c.want.msg)
				return
			}
			if err != nil {
				t.Fatalf("err = %v; want %d rows", err, c.want.n)
			}
			if n != c.want.n {
				t.Fatalf("%d rows; want %d", n, c.want.n)
			}
		})
	}
}

// TestRESTPoolFailsClosed proves that a statement on the gateway's REST pool
// that skipped the role switch reads and runs nothing, including right
// after a transaction that did switch to service_role on the same
// connection.
func TestRESTPoolFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	pgtest.CreateUser(t, db.Pool, "a@example.com", "password-a")
	// One connection, so the plain statements reuse the switched one.
	pools, err := dbpkg.Open(ctx, db.URL, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)

	var sawUsers int64
	if err := dbpkg.Tx(ctx, pools.REST, service.role, service.claims, true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SELECT count(*) FROM auth.users").Scan(&sawUsers)
	}); err != nil || sawUsers != 1 {
		t.Fatalf("as service_role: %d users, %v; want 1", sawUsers, err)
	}

	var who, claims string
	if err := pools.REST.QueryRow(ctx,
		"SELECT current_user, coalesce(current_setting('request.jwt.claims', true), '')").Scan(&who, &claims); err != nil {
		t.Fatal(err)
	}
	if who != "authenticator" || claims != "" {
		t.Fatalf("after the transaction: current_user %q, claims %q; want authenticator and none", who, claims)
	}

	for _, sql := range []string{
		`SELECT id FROM public.labels`,
		`SELECT id FROM public.releases`,
		`SELECT id FROM public.user_follow_labels`,
		`SELECT id FROM public.user_listened_releases`,
		`SELECT id FROM public.labels_to_add`,
		`SELECT id FROM public.invite_codes`,
		`SELECT user_id FROM public.invite_redemptions`,
		`SELECT id FROM auth.users`,
		`INSERT INTO public.labels_to_add (label_url) VALUES ('https://x.bandcamp.com')`,
		`SELECT public.validate_invite_code('whatever-code')`,
		`SELECT id FROM public.get_latest_releases_per_label('{1}', 5)`,
		`SELECT public.count_unfollowed_labels(NULL)`,
	} {
		t.Run(sql, func(t *testing.T) {
			_, err := pools.REST.Exec(ctx, sql)
			requirePgError(t, err, "42501", "permission denied")
		})
	}
}
