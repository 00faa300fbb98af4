package scale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labelbase/labelbase/pkg/db"
)

// call is one procedure call as the app makes it: $1, when the SQL has it,
// is the signed-in user's id and $2, when the SQL has it, a number that varies from call to
// call (a page, an offset) so the calls walk different data.
type call struct {
	name string
	sql  string
	// vary gives $2 for the i-th call; nil when the SQL has no $2.
	vary func(i int) int
}

// page cycles through the first n pages.
func page(n int) func(int) int { return func(i int) int { return 1 + i%n } }

var calls = []call{
	{"validate_invite_code", `SELECT public.validate_invite_code('scale-dataset-code')`, nil},
	{"get_all_filtered_labels_by_listen_status", `SELECT * FROM public.get_all_filtered_labels_by_listen_status($1, 'unchecked')`, nil},
	{"count_filtered_labels_by_listen_status", `SELECT public.count_filtered_labels_by_listen_status($1, 'checked', 'techno')`, nil},
	{"get_filtered_labels_by_listen_status", `SELECT * FROM public.get_filtered_labels_by_listen_status($1, 'all', 1, 500, NULL)`, nil},
	{"get_latest_releases_per_label", `SELECT * FROM public.get_latest_releases_per_label(
		(SELECT array_agg(label_id) FROM (SELECT label_id FROM public.user_follow_labels WHERE user_id = $1
		  ORDER BY label_id LIMIT 5 OFFSET $2) f), 5)`, func(i int) int { return 5 * (i % 20) }},
	{"get_followed_labels", `SELECT * FROM public.get_followed_labels($1, $2, 20, NULL, NULL, NULL)`, page(5)},
	{"get_unfollowed_labels", `SELECT * FROM public.get_unfollowed_labels($1, $2, 20, NULL, 'jazz', NULL)`, page(10)},
	{"get_unfollowed_labels (no filter)", `SELECT * FROM public.get_unfollowed_labels($1, $2, 20, NULL, NULL, NULL)`, page(10)},
	{"get_unfollowed_labels (search)", `SELECT * FROM public.get_unfollowed_labels($1, 1, 20, NULL, NULL, 'records 12')`, nil},
	{"count_followed_labels", `SELECT public.count_followed_labels($1, NULL, NULL, NULL)`, nil},
	{"count_unfollowed_labels", `SELECT public.count_unfollowed_labels($1, 'a', NULL, NULL)`, nil},
	{"count_unfollowed_labels (no filter)", `SELECT public.count_unfollowed_labels($1, NULL, NULL, NULL)`, nil},
	{"count_unfollowed_labels (tag)", `SELECT public.count_unfollowed_labels($1, NULL, 'jazz', NULL)`, nil},
	{"get_random_releases (3 months)", `SELECT * FROM public.get_random_releases($1, NULL, '{}', 9, NULL, 90)`, nil},
	{"get_random_releases (genre, 6 months)", `SELECT * FROM public.get_random_releases($1, NULL, '{}', 9, '{techno}', 180)`, nil},
	{"get_random_releases (today)", `SELECT * FROM public.get_random_releases($1, NULL, '{}', 9, NULL, 0)`, nil},
	{"get_latest_releases (page 1)", `SELECT * FROM public.get_latest_releases($1, NULL, 9, 1)`, nil},
	{"get_latest_releases (pages 1-20)", `SELECT * FROM public.get_latest_releases($1, NULL, 9, $2)`, page(20)},
	// The Labels tabs' tag chips and Explore's genre panel (000021); the
	// caller is auth.uid(), from the transaction's claims.
	{"get_label_tags (following)", `SELECT * FROM public.get_label_tags(true)`, nil},
	{"get_label_tags (discover)", `SELECT * FROM public.get_label_tags(false)`, nil},
	{"get_explore_genres (today)", `SELECT * FROM public.get_explore_genres(0)`, nil},
	{"get_explore_genres (3 months)", `SELECT * FROM public.get_explore_genres(90)`, nil},
	{"get_explore_genres (6 months)", `SELECT * FROM public.get_explore_genres(180)`, nil},
}

var seqScanReleases = regexp.MustCompile(`Seq Scan on (public\.)?releases\b`)

// Result is one procedure's measurement.
type Result struct {
	Name string
	// P50 and P95 are over the timed calls, measured by the client around
	// the call statement alone (not the transaction and claims around it).
	P50, P95 time.Duration
	// Explain is EXPLAIN ANALYZE's execution time of the first user's call.
	Explain string
	// Plans counts the nested statement plans auto_explain reported in the
	// first pass.
	Plans    int
	SeqScans bool
}

// DefaultCalls is how many times each procedure is called by default.
const DefaultCalls = 50

// Report calls every procedure n times as signed-in users of the dataset
// (a different user on each call, up to n of them, and varied pages), in
// two passes over the same calls on one connection, as the gateway reuses
// its connections. The first pass loads auto_explain, which sends the plan
// of every statement inside the PL/pgSQL functions to this session as
// notices, and records whether any scanned the releases table
// sequentially; it also warms the caches and the functions' plan caches.
// The second pass, with auto_explain silent, is the one timed, so the
// figures do not include printing plans. A non-empty only keeps the
// procedures whose name contains it.
func Report(ctx context.Context, databaseURL string, n int, only string, w io.Writer) ([]Result, error) {
	if n < 1 {
		return nil, fmt.Errorf("scale: calls per procedure must be 1 or more, got %d", n)
	}
	var plans []string
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return nil, err
	}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { plans = append(plans, n.Message) }
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	users, err := followingUsers(ctx, conn, n)
	if err != nil {
		return nil, err
	}
	setup := []string{
		"LOAD 'auto_explain'",
		"SET auto_explain.log_nested_statements = on",
		"SET auto_explain.log_level = notice",
		"SET client_min_messages = notice",
	}
	for _, s := range setup {
		if _, err := conn.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("scale: %s: %w", s, err)
		}
	}
	var out []Result
	for _, c := range calls {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		res := Result{Name: c.name}
		if _, err := conn.Exec(ctx, "SET auto_explain.log_min_duration = 0"); err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			plans = plans[:0]
			if _, err := timeCall(ctx, conn, c, users[i%len(users)], i); err != nil {
				return nil, fmt.Errorf("scale: %s: %w", c.name, err)
			}
			res.Plans += len(plans)
			for _, p := range plans {
				if seqScanReleases.MatchString(p) {
					res.SeqScans = true
				}
			}
		}
		if res.Plans == 0 {
			return nil, fmt.Errorf("scale: %s: auto_explain reported no plans; cannot judge index use", c.name)
		}
		if _, err := conn.Exec(ctx, "SET auto_explain.log_min_duration = -1"); err != nil {
			return nil, err
		}
		times := make([]time.Duration, n)
		for i := range times {
			if times[i], err = timeCall(ctx, conn, c, users[i%len(users)], i); err != nil {
				return nil, fmt.Errorf("scale: %s: %w", c.name, err)
			}
		}
		res.P50, res.P95 = percentile(times, 50), percentile(times, 95)
		if res.Explain, err = explainTime(ctx, conn, c, users[0]); err != nil {
			return nil, fmt.Errorf("scale: %s: %w", c.name, err)
		}
		seq := "no"
		if res.SeqScans {
			seq = "YES"
		}
		fmt.Fprintf(w, "| %-40s | %8.2f ms | %8.2f ms | %10s | %4d | %s |\n", c.name,
			ms(res.P50), ms(res.P95), res.Explain, res.Plans, seq)
		out = append(out, res)
	}
	return out, nil
}

// followingUsers returns up to n users of the dataset who follow labels,
// spread over the whole set rather than the first few.
func followingUsers(ctx context.Context, conn *pgx.Conn, n int) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT id::text FROM (
		  SELECT u.id, row_number() OVER (ORDER BY u.id) AS k, count(*) OVER () AS total
		    FROM auth.users u
		   WHERE EXISTS (SELECT 1 FROM public.user_follow_labels f WHERE f.user_id = u.id)) s
		 WHERE (k - 1) % greatest(total / $1, 1) = 0
		 ORDER BY k LIMIT $1`, n)
	if err != nil {
		return nil, fmt.Errorf("scale: users: %w", err)
	}
	users, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("scale: users: %w", err)
	}
	if len(users) == 0 {
		return nil, fmt.Errorf("scale: no user with follows")
	}
	return users, nil
}

func (c call) args(user string, i int) []any {
	if !strings.Contains(c.sql, "$1") {
		return nil
	}
	if c.vary == nil {
		return []any{user}
	}
	return []any{user, c.vary(i)}
}

// timeCall makes the i-th call as user and returns how long the call
// statement took, rows read. It runs as the gateway would, through the
// gateway's own setup statement (db.AsCaller), and keeps nothing.
func timeCall(ctx context.Context, conn *pgx.Conn, c call, user string, i int) (time.Duration, error) {
	var d time.Duration
	err := db.AsCaller(ctx, conn, member(user), func(tx pgx.Tx) error {
		start := time.Now()
		rows, err := tx.Query(ctx, c.sql, c.args(user, i)...)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
		}
		d = time.Since(start)
		if err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		return 0, err
	}
	return d, nil
}

// errRollback ends a measuring transaction without keeping anything.
var errRollback = errors.New("scale: roll back")

// member is the signed-in user the report measures as.
func member(user string) db.Caller {
	return db.Caller{Role: "authenticated", Claims: []byte(fmt.Sprintf(`{"sub":%q,"role":"authenticated"}`, user)), ReadOnly: true}
}

// percentile is the nearest-rank p-th percentile of ts (which it sorts).
func percentile(ts []time.Duration, p int) time.Duration {
	slices.Sort(ts)
	k := (len(ts)*p + 99) / 100
	return ts[max(k, 1)-1]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

var executionTime = regexp.MustCompile(`Execution Time: ([0-9.]+ ms)`)

// explainTime runs EXPLAIN ANALYZE of the call's first variant as the user
// and returns PostgreSQL's own execution time.
func explainTime(ctx context.Context, conn *pgx.Conn, c call, user string) (string, error) {
	var took string
	err := db.AsCaller(ctx, conn, member(user), func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "EXPLAIN ANALYZE "+c.sql, c.args(user, 0)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return err
			}
			if m := executionTime.FindStringSubmatch(line); m != nil && took == "" {
				took = m[1]
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if took == "" {
			return errors.New("no execution time in the plan")
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		return "", err
	}
	return took, nil
}
