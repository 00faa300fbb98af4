package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// runQueue is `labelbase queue`: the admin console's Queue tab on the
// command line. It calls the same SQL procedures (admin_submissions,
// admin_retry_submission, admin_reject_submission) as the database owner,
// whom public.is_admin() admits, so the checks and the audit rows are the
// console's.
func runQueue(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	fs := flag.NewFlagSet("queue "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	status := fs.String("status", "", "list: only pending, refused or done")
	reason := fs.String("reason", "", "reject: why (shown with the refused submission)")
	rest, err := parseAround(fs, args)
	if err != nil {
		return err
	}
	var id int64
	switch sub {
	case "list":
		if len(rest) != 0 {
			return usageError{"queue list takes no arguments"}
		}
		switch *status {
		case "", "pending", "refused", "done":
		default:
			return usageError{"--status must be pending, refused or done"}
		}
	case "retry", "reject":
		if len(rest) != 1 {
			return usageError{"queue " + sub + " needs one submission ID"}
		}
		n, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || n < 1 {
			return usageError{fmt.Sprintf("queue %s: %q is not a submission ID", sub, rest[0])}
		}
		id = n
		if sub == "reject" && strings.TrimSpace(*reason) == "" {
			return usageError{"queue reject needs --reason TEXT"}
		}
	default:
		return usageError{fmt.Sprintf("unknown queue command %q (list, retry ID, reject ID --reason TEXT)", sub)}
	}
	pool, err := openPool(ctx, log)
	if err != nil {
		return err
	}
	defer pool.Close()
	switch sub {
	case "retry":
		if _, err := pool.Exec(ctx, `SELECT public.admin_retry_submission($1)`, id); err != nil {
			return sqlMessage(err)
		}
		fmt.Fprintf(stdout, "submission %d is queued again; the next crawl tick processes it\n", id)
		return nil
	case "reject":
		if _, err := pool.Exec(ctx, `SELECT public.admin_reject_submission($1, $2)`, id, *reason); err != nil {
			return sqlMessage(err)
		}
		fmt.Fprintf(stdout, "submission %d rejected\n", id)
		return nil
	}
	return listQueue(ctx, pool, *status, stdout)
}

type queueRow struct {
	ID        int64
	URL       string
	Status    string
	Reason    *string
	Submitter *string
	Submitted time.Time
}

func listQueue(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, status string, stdout io.Writer) error {
	var st any
	if status != "" {
		st = status
	}
	rows, _ := q.Query(ctx, `SELECT id, label_url, status, reason, submitter_email, submitted_at
		FROM public.admin_submissions($1)`, st)
	subs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[queueRow])
	if err != nil {
		return sqlMessage(err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tURL\tSUBMITTER\tSUBMITTED\tREASON")
	for _, s := range subs {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.Status, s.URL, orDash(s.Submitter),
			s.Submitted.UTC().Format("2006-01-02 15:04"), orDash(s.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d submissions\n", len(subs))
	return nil
}

// sqlMessage turns a procedure's refusal ("No submission 7") into a plain
// error; other errors pass through.
func sqlMessage(err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return errors.New(pgErr.Message)
	}
	return err
}
