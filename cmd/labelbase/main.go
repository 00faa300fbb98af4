// Command labelbase is the Labelbase gateway and its admin tool.
//
//	labelbase dev                         zero-setup local run (private PostgreSQL in .data/)
//	labelbase serve                       production entry point on DATABASE_URL
//	labelbase migrate up|down|version     schema migrations
//	labelbase invite create|list|revoke   invite codes
//	labelbase keys [rotate|revoke KID]    API keys and JWT signing keys
//	labelbase user list|create|...      manage users (admin API)
//	labelbase demo                        load the demo catalogue
//	labelbase crawl --once                run one ingest pass
//	labelbase health [--ready]            container health check
//	labelbase version                     which build this is
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/labelbase/labelbase/pkg/requestid"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/version"
)

const usage = `labelbase — a Supabase-compatible gateway and the Labelbase app

Usage:
  labelbase dev                              run everything locally: private PostgreSQL in .data/,
                                             migrations, demo data, http://localhost:8080
  labelbase serve [--migrate=false]          serve on DATABASE_URL (production)
  labelbase migrate up|down|version          apply, revert or show schema migrations
  labelbase invite create [--uses N] [--expires DURATION] [--note TEXT]
                                             print a new invite code
  labelbase invite list                      list invite codes
  labelbase invite revoke CODE               make a code unusable
  labelbase user list [--page N] [--per-page N]   list users (admin API)
  labelbase user create EMAIL [--password P] [--unconfirmed]
                                             create a user; no invite code needed
  labelbase user reset-password EMAIL        print a one-time password-reset link
  labelbase user ban|unban EMAIL [--for 24h] ban (default: ~100 years) or unban
  labelbase user delete EMAIL [--soft]       delete a user
  labelbase user admin EMAIL [--revoke]      make a member an admin (app_metadata.role), or take it back
  labelbase queue [list [--status S]]        the submission queue (pending, refused with reason, done)
  labelbase queue retry ID                   queue a submission again; the next crawl tick processes it
  labelbase queue reject ID --reason TEXT    refuse a submission with a reason
  labelbase keys                             print the API keys (legacy JWT and sb_ keys) and signing keys
  labelbase keys rotate [--alg ES256|RS256]  add a signing key that signs from now on
  labelbase keys revoke KID                  remove a signing key: tokens it signed are refused
  labelbase keys import [--kid KID] [--current] FILE
                                             store the keys of a JWK, JWK set or PEM file (- for stdin):
                                             they verify; with --current the private one signs too
  labelbase keys use KID                     make a stored key sign from now on
  labelbase demo                             load the demo catalogue into an empty database
  labelbase crawl                            run the daily crawl schedule in the foreground (CRAWL_AT)
  labelbase crawl --once                     process queued label URLs and crawl releases once
  labelbase crawl --history                  show the last ten crawl passes
  labelbase scale [--releases N] [--calls N] [--only NAME]
                                             generate the large benchmark dataset and time every
                                             procedure (--only: the calls whose name contains NAME)
  labelbase health [--ready]                 exit 0 when the local gateway is alive (/livez) or, with
                                             --ready, can serve (/readyz): for container health checks
  labelbase version                          print the build (version, VCS revision, Go version)

Next to a running ` + "`labelbase dev`" + ` (same directory), every command uses that dev's
database and address unless DATABASE_URL is set. Other configuration is read
from the environment; see docs/configuration.md. ` + "`labelbase help COMMAND`" + ` (or COMMAND --help)
shows one command.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "labelbase:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg + "\n\n" + usage }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"no command given"}
	}
	// Help is answered before anything reads a setting or opens a database.
	if text, ok, err := helpFor(args); ok {
		if err != nil {
			return err
		}
		fmt.Fprint(stdout, text)
		return nil
	}
	out := server.NewLogOutput(stderr)
	log := newLogger(out, os.Getenv("LOG_LEVEL"), os.Getenv("LOG_FORMAT"))
	switch cmd, rest := args[0], args[1:]; cmd {
	case "dev":
		return runDev(ctx, rest, stdout, log)
	case "serve":
		return runServe(ctx, rest, log, out)
	case "migrate":
		return runMigrate(ctx, rest, stdout, log)
	case "invite":
		return runInvite(ctx, rest, stdout, log)
	case "user":
		return runUser(ctx, rest, stdout, log)
	case "keys":
		return runKeys(ctx, rest, stdout, log)
	case "queue":
		return runQueue(ctx, rest, stdout, log)
	case "demo":
		return runDemo(ctx, stdout, log)
	case "crawl":
		cfg, err := cliConfig(log)
		if err != nil {
			return err
		}
		return crawlCommand(ctx, cfg, rest, stdout, log)
	case "scale":
		return runScale(ctx, rest, stdout, log)
	case "health":
		return runHealth(ctx, rest, stdout, log)
	case "version":
		fmt.Fprintln(stdout, version.Get())
		return nil
	default:
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

func newLogger(w io.Writer, level, format string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: l}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if format == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return slog.New(requestid.NewHandler(h))
}

// parseAround parses fs's flags before and after the command's one
// positional argument (`user ban EMAIL --for 24h`, `queue reject 7 --reason
// …`), which the flag package alone stops at, and returns the positionals.
func parseAround(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err.Error()}
	}
	rest := fs.Args()
	if len(rest) > 1 {
		if err := fs.Parse(rest[1:]); err != nil {
			return nil, usageError{err.Error()}
		}
		rest = append([]string{rest[0]}, fs.Args()...)
	}
	return rest, nil
}
