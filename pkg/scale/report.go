package scale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labelbase/labelbase/pkg/db"
)

// call is one procedure call as the app makes it; %s is the user's id.
type call struct{ name, sql string }

var calls = []call{
	{"validate_invite_code", `SELECT public.validate_invite_code('scale-dataset-code')`},
	{"get_all_filtered_labels_by_listen_status", `SELECT * FROM public.get_all_filtered_labels_by_listen_status('%s', 'unchecked')`},
	{"count_filtered_labels_by_listen_status", `SELECT public.count_filtered_labels_by_listen_status('%s', 'checked', 'techno')`},
	{"get_filtered_labels_by_listen_status", `SELECT * FROM public.get_filtered_labels_by_listen_status('%s', 'all', 1, 500, NULL)`},
	{"get_latest_releases_per_label", `SELECT * FROM public.get_latest_releases_per_label(
		(SELECT array_agg(label_id) FROM (SELECT label_id FROM public.user_follow_labels WHERE user_id = '%s' LIMIT 5) f), 5)`},
	{"get_followed_labels", `SELECT * FROM public.get_followed_labels('%s', 1, 20, NULL, NULL, NULL)`},
	{"get_unfollowed_labels", `SELECT * FROM public.get_unfollowed_labels('%s', 3, 20, NULL, 'jazz', NULL)`},
	{"get_unfollowed_labels (search)", `SELECT * FROM public.get_unfollowed_labels('%s', 1, 20, NULL, NULL, 'records 12')`},
	{"count_followed_labels", `SELECT public.count_followed_labels('%s', NULL, NULL, NULL)`},
	{"count_unfollowed_labels", `SELECT public.count_unfollowed_labels('%s', 'a', NULL, NULL)`},
	{"get_random_releases (3 months)", `SELECT * FROM public.get_random_releases('%s', NULL, '{}', 9, NULL, 90)`},
	{"get_random_releases (genre, 6 months)", `SELECT * FROM public.get_random_releases('%s', NULL, '{}', 9, '{techno}', 180)`},
	{"get_random_releases (today)", `SELECT * FROM public.get_random_releases('%s', NULL, '{}', 9, NULL, 0)`},
	{"get_latest_releases (page 1)", `SELECT * FROM public.get_latest_releases('%s', NULL, 9, 1)`},
	{"get_latest_releases (page 20)", `SELECT * FROM public.get_latest_releases('%s', NULL, 9, 20)`},
}

var seqScanReleases = regexp.MustCompile(`Seq Scan on (public\.)?releases\b`)

// Result is one procedure's measurement.
type Result struct {
	Name string
	// Best is the fastest of five calls, measured by the client.
	Best time.Duration
	// Explain is EXPLAIN ANALYZE's execution time of the call.
	Explain string
	// Plans counts the nested statement plans auto_explain reported.
	Plans    int
	SeqScans bool
}

// Report calls every procedure as a signed-in user of the dataset, five
// times each, and records the best time and whether any statement inside
// it scanned the releases table sequentially. The nested plans come from
// auto_explain, sent to this session as notices.
func Report(ctx context.Context, databaseURL string, w io.Writer) ([]Result, error) {
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
	var user string
	if err := conn.QueryRow(ctx, `SELECT user_id::text FROM public.user_follow_labels GROUP BY user_id ORDER BY user_id LIMIT 1`).Scan(&user); err != nil {
		return nil, fmt.Errorf("scale: no user with follows: %w", err)
	}
	setup := []string{
		"LOAD 'auto_explain'",
		"SET auto_explain.log_min_duration = 0",
		"SET auto_explain.log_nested_statements = on",
		"SET auto_explain.log_level = notice",
		"SET client_min_messages = notice",
	}
	for _, s := range setup {
		if _, err := conn.Exec(ctx, s); err != nil {
			return nil, fmt.Errorf("scale: %s: %w", s, err)
		}
	}
	claims := fmt.Sprintf(`{"sub":%q,"role":"authenticated"}`, user)
	var out []Result
	for _, c := range calls {
		q := c.sql
		if strings.Contains(q, "%s") {
			q = fmt.Sprintf(q, user)
		}
		res := Result{Name: c.name, Best: time.Hour}
		for i := 0; i < 5; i++ {
			plans = plans[:0]
			var d time.Duration
			// As the gateway runs it: the same setup statement, as the user.
			err := db.AsCaller(ctx, conn, member(claims), func(tx pgx.Tx) error {
				start := time.Now()
				rows, err := tx.Query(ctx, q)
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
				return nil, fmt.Errorf("scale: %s: %w", c.name, err)
			}
			if d < res.Best {
				res.Best = d
			}
			res.Plans = len(plans)
			for _, p := range plans {
				if seqScanReleases.MatchString(p) {
					res.SeqScans = true
				}
			}
		}
		if res.Plans == 0 {
			return nil, fmt.Errorf("scale: %s: auto_explain reported no plans; cannot judge index use", c.name)
		}
		if res.Explain, err = explainTime(ctx, conn, claims, q); err != nil {
			return nil, fmt.Errorf("scale: %s: %w", c.name, err)
		}
		seq := "no"
		if res.SeqScans {
			seq = "YES"
		}
		fmt.Fprintf(w, "| %-40s | %8.2f ms | %10s | %d | %s |\n", c.name, float64(res.Best.Microseconds())/1000, res.Explain, res.Plans, seq)
		out = append(out, res)
	}
	return out, nil
}

var executionTime = regexp.MustCompile(`Execution Time: ([0-9.]+ ms)`)

// explainTime runs EXPLAIN ANALYZE of the call as the user and returns
// PostgreSQL's own execution time.
func explainTime(ctx context.Context, conn *pgx.Conn, claims, q string) (string, error) {
	var took string
	err := db.AsCaller(ctx, conn, member(claims), func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "EXPLAIN ANALYZE "+q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				return err
			}
			if m := executionTime.FindStringSubmatch(line); m != nil {
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

// errRollback ends a measuring transaction without keeping anything.
var errRollback = errors.New("scale: roll back")

// member is the signed-in user the report measures as.
func member(claims string) db.Caller {
	return db.Caller{Role: "authenticated", Claims: []byte(claims), ReadOnly: true}
}
