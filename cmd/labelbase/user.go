package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"text/tabwriter"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/auth"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/server"
)

// userCLI drives the admin users API in process with the service_role key,
// so `labelbase user ...` validates, audits and answers exactly as
// /auth/v1/admin/users does for supabase.auth.admin.
type userCLI struct {
	cfg  *config.Config
	pool *pgxpool.Pool
	api  *auth.API
	h    http.Handler
}

func newUserCLI(ctx context.Context, log *slog.Logger) (*userCLI, error) {
	cfg, err := cliConfig(log)
	if err != nil {
		return nil, err
	}
	pool, err := db.OpenPool(ctx, cfg.DatabaseURL, cliPoolSize, !cfg.DBPreparedStatements)
	if err != nil {
		return nil, fmt.Errorf("connecting to the database: %w", err)
	}
	api, err := auth.New(auth.Deps{Config: cfg, Pool: pool, Log: log})
	if err != nil {
		pool.Close()
		return nil, err
	}
	// The in-process requests are the command's own: their access-log
	// lines would only clutter its output (LOG_LEVEL=debug shows them).
	h := server.New(server.Deps{Config: cfg, Log: log, Ready: pool.Ping, Auth: api.Register,
		RequestLog: server.RequestLog{Level: slog.LevelDebug}})
	return &userCLI{cfg: cfg, pool: pool, api: api, h: h}, nil
}

// call sends one admin request and decodes the answer into out; a GoTrue
// error becomes a Go error with its message.
func (u *userCLI) call(method, path string, body, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	r := httptest.NewRequest(method, "/auth/v1"+path, rd)
	r.Header.Set("apikey", u.cfg.ServiceRoleKey)
	r.Header.Set("Authorization", "Bearer "+u.cfg.ServiceRoleKey)
	r.Header.Set("Content-Type", "application/json")
	r.RemoteAddr = "127.0.0.1:0"
	rec := httptest.NewRecorder()
	u.h.ServeHTTP(rec, r)
	if rec.Code >= 300 {
		var e struct {
			Code    string `json:"error_code"`
			Msg     string `json:"msg"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &e)
		msg := e.Msg
		if msg == "" {
			msg = e.Message
		}
		return nil, fmt.Errorf("%s (%s, HTTP %d)", msg, e.Code, rec.Code)
	}
	if out != nil {
		return rec.Header(), json.Unmarshal(rec.Body.Bytes(), out)
	}
	return rec.Header(), nil
}

// resolve turns an email or a user id into an id.
func (u *userCLI) resolve(ctx context.Context, who string) (string, error) {
	if !strings.Contains(who, "@") {
		return who, nil
	}
	var id string
	err := u.pool.QueryRow(ctx, `SELECT id::text FROM auth.users WHERE email = lower(btrim($1)) AND deleted_at IS NULL`, who).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("no user with email %s", who)
	}
	return id, nil
}

type cliUser struct {
	ID               string  `json:"id"`
	Email            string  `json:"email"`
	EmailConfirmedAt *string `json:"email_confirmed_at"`
	LastSignInAt     *string `json:"last_sign_in_at"`
	CreatedAt        string  `json:"created_at"`
	AppMetadata      struct {
		Role string `json:"role"`
	} `json:"app_metadata"`
}

// adminRole is the app_metadata role that makes a member an admin
// (public.is_admin in migration 000017, docs/admin.md).
const adminRole = "admin"

// userFlags are the flags every user command accepts; each command reads
// the ones that concern it.
type userFlags struct {
	page, perPage int
	password      string
	unconfirmed   bool
	banFor        string
	soft, revoke  bool
}

func runUser(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"user needs one of: list, create, reset-password, ban, unban, admin, delete"}
	}
	f, who, err := parseUserArgs(args[0], args[1:])
	if err != nil {
		return err
	}
	u, err := newUserCLI(ctx, log)
	if err != nil {
		return err
	}
	defer u.pool.Close()
	return u.run(ctx, args[0], who, f, stdout)
}

// parseUserArgs reads the flags of user command cmd, wherever they stand,
// and its one EMAIL (or user id), which every command but list needs. It
// refuses what is not a user command before anything is opened.
func parseUserArgs(cmd string, args []string) (userFlags, string, error) {
	var f userFlags
	fs := flag.NewFlagSet("user "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&f.page, "page", 1, "page of the list")
	fs.IntVar(&f.perPage, "per-page", 50, "users per page")
	fs.StringVar(&f.password, "password", "", "initial password (none: send a reset link)")
	fs.BoolVar(&f.unconfirmed, "unconfirmed", false, "leave the email unconfirmed")
	fs.StringVar(&f.banFor, "for", "876000h", "ban length, a Go duration")
	fs.BoolVar(&f.soft, "soft", false, "soft delete: keep the row, free the email")
	fs.BoolVar(&f.revoke, "revoke", false, "user admin: take the admin role away")
	rest, err := parseAround(fs, args)
	if err != nil {
		return f, "", err
	}
	var who string
	if cmd != "list" {
		if len(rest) != 1 {
			return f, "", usageError{"user " + cmd + " needs one EMAIL (or user id)"}
		}
		who = rest[0]
	}
	switch cmd {
	case "list", "create", "reset-password", "ban", "unban", "admin", "delete":
	default:
		return f, "", usageError{fmt.Sprintf("unknown user command %q", cmd)}
	}
	return f, who, nil
}

// run runs user command cmd on who (an email or a user id; "" for list).
func (u *userCLI) run(ctx context.Context, cmd, who string, f userFlags, stdout io.Writer) error {
	switch cmd {
	case "list":
		return u.list(ctx, f.page, f.perPage, stdout)
	case "create":
		return u.create(who, f.password, !f.unconfirmed, stdout)
	case "reset-password":
		link, err := u.api.RecoveryLink(ctx, who)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "One-time link (valid for %s), send it to the member:\n%s\n", mail.HumanDuration(u.cfg.MailerOTPExp), link)
		return nil
	}
	id, err := u.resolve(ctx, who)
	if err != nil {
		return err
	}
	switch cmd {
	case "admin":
		return u.setAdmin(ctx, id, who, !f.revoke, stdout)
	case "ban", "unban":
		d := f.banFor
		if cmd == "unban" {
			d = "none"
		}
		if _, err := u.call("PUT", "/admin/users/"+id, map[string]any{"ban_duration": d}, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%sned %s\n", cmd, who)
	default:
		if _, err := u.call("DELETE", "/admin/users/"+id, map[string]any{"should_soft_delete": f.soft}, nil); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "deleted %s\n", who)
	}
	return nil
}

// list prints one page of users as a table, with whether each is an admin
// and banned, and the total.
func (u *userCLI) list(ctx context.Context, page, perPage int, stdout io.Writer) error {
	var out struct{ Users []cliUser }
	h, err := u.call("GET", fmt.Sprintf("/admin/users?page=%d&per_page=%d", page, perPage), nil, &out)
	if err != nil {
		return err
	}
	banned, err := u.bannedIDs(ctx, out.Users)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tCONFIRMED\tLAST SIGN-IN\tCREATED\tADMIN\tBANNED")
	for _, x := range out.Users {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", x.ID, x.Email, orDash(x.EmailConfirmedAt), orDash(x.LastSignInAt),
			x.CreatedAt, yesNo(x.AppMetadata.Role == adminRole), orDash(banned[x.ID]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s users in all (page %d)\n", h.Get("X-Total-Count"), page)
	return nil
}

// create creates a member; without a password they set one through a
// reset link.
func (u *userCLI) create(email, password string, confirm bool, stdout io.Writer) error {
	body := map[string]any{"email": email, "email_confirm": confirm}
	if password != "" {
		body["password"] = password
	}
	var out cliUser
	if _, err := u.call("POST", "/admin/users", body, &out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "created %s (%s)\n", out.Email, out.ID)
	return nil
}

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "-"
}

// bannedIDs maps the listed users who are banned now to the end of their
// ban. The admin users API does not send banned_until, so it is read from
// auth.users directly.
func (u *userCLI) bannedIDs(ctx context.Context, users []cliUser) (map[string]*string, error) {
	ids := make([]string, len(users))
	for i, x := range users {
		ids[i] = x.ID
	}
	rows, _ := u.pool.Query(ctx, `
		SELECT id::text, CASE WHEN banned_until > now() + interval '50 years' THEN 'yes'
		                      ELSE 'until ' || to_char(banned_until AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI') || ' UTC' END
		  FROM auth.users WHERE id::text = ANY($1) AND banned_until > now()`, ids)
	out := map[string]*string{}
	var id, state string
	_, err := pgx.ForEachRow(rows, []any{&id, &state}, func() error {
		s := state
		out[id] = &s
		return nil
	})
	return out, err
}

// setAdmin grants or revokes the admin role through the admin users API
// (app_metadata.role, which reaches the member's next access token) and
// writes the admin audit row the SQL procedures write.
func (u *userCLI) setAdmin(ctx context.Context, id, who string, grant bool, stdout io.Writer) error {
	var role any = adminRole
	action := "grant_admin"
	if !grant {
		role, action = nil, "revoke_admin"
	}
	if _, err := u.call("PUT", "/admin/users/"+id, map[string]any{"app_metadata": map[string]any{"role": role}}, nil); err != nil {
		return err
	}
	if _, err := u.pool.Exec(ctx, `SELECT private.audit($1, $2, jsonb_build_object('user_id', $3::text, 'via', 'cli'))`,
		action, who, id); err != nil {
		return fmt.Errorf("recording the audit row: %w", err)
	}
	if grant {
		fmt.Fprintf(stdout, "%s is an admin (from their next sign-in or token refresh)\n", who)
	} else {
		fmt.Fprintf(stdout, "%s is no longer an admin\n", who)
	}
	return nil
}
