package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/invite"
	"github.com/labelbase/labelbase/pkg/migrate"
)

func runMigrate(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) != 1 || (args[0] != "up" && args[0] != "down" && args[0] != "version") {
		return usageError{"migrate needs one of: up, down, version"}
	}
	u, err := databaseURL(log)
	if err != nil {
		return err
	}
	// Migrations take a session-level lock: behind a pooler they run on
	// the direct connection.
	if d, err := config.DirectDatabaseURL(cliGetenv(log)); err != nil {
		return err
	} else if d != "" {
		u = d
	}
	m, err := migrate.New(u)
	if err != nil {
		return err
	}
	defer m.Close()
	switch args[0] {
	case "up":
		if err := m.Up(); err != nil {
			return err
		}
	case "down":
		if err := m.Down(); err != nil {
			return err
		}
	}
	v, dirty, err := m.Version()
	if err != nil {
		return err
	}
	latest, _ := migrate.Latest()
	state := "clean"
	if dirty {
		state = "dirty: a migration failed half-way; fix it and force the version"
	}
	fmt.Fprintf(stdout, "version %d of %d (%s)\n", v, latest, state)
	return nil
}

func runInvite(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) == 0 {
		return usageError{"invite needs one of: create, list, revoke"}
	}
	switch args[0] {
	case "create":
		fs := flag.NewFlagSet("invite create", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		uses := fs.Int("uses", 1, "how many sign-ups the code allows")
		expires := fs.Duration("expires", 0, "lifetime such as 72h (0 = never expires)")
		note := fs.String("note", "", "a note for yourself, e.g. who it is for")
		if err := fs.Parse(args[1:]); err != nil {
			return usageError{err.Error()}
		}
		if *uses < 1 {
			return usageError{"--uses must be at least 1"}
		}
		if *expires < 0 {
			return usageError{"--expires must be positive"}
		}
		pool, err := openPool(ctx, log)
		if err != nil {
			return err
		}
		defer pool.Close()
		c, err := invite.Create(ctx, pool, invite.Options{MaxUses: *uses, TTL: *expires, Note: *note})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, c.Code)
		return nil
	case "list":
		pool, err := openPool(ctx, log)
		if err != nil {
			return err
		}
		defer pool.Close()
		codes, err := invite.List(ctx, pool)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CODE\tSTATUS\tUSES\tEXPIRES\tCREATED\tNOTE")
		now := time.Now()
		for _, c := range codes {
			exp := "never"
			if c.ExpiresAt != nil {
				exp = c.ExpiresAt.UTC().Format(time.RFC3339)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", c.Code, c.Status(now), c.Uses, c.MaxUses, exp,
				c.CreatedAt.UTC().Format(time.RFC3339), c.Note)
		}
		return tw.Flush()
	case "revoke":
		if len(args) != 2 {
			return usageError{"invite revoke needs the code"}
		}
		pool, err := openPool(ctx, log)
		if err != nil {
			return err
		}
		defer pool.Close()
		if err := invite.Revoke(ctx, pool, args[1]); err != nil {
			if errors.Is(err, invite.ErrNotFound) {
				return fmt.Errorf("no invite code %q", args[1])
			}
			return err
		}
		fmt.Fprintln(stdout, "revoked")
		return nil
	default:
		return usageError{fmt.Sprintf("unknown invite action %q", args[0])}
	}
}

func runDemo(ctx context.Context, stdout io.Writer, log *slog.Logger) error {
	pool, err := openPool(ctx, log)
	if err != nil {
		return err
	}
	defer pool.Close()
	loaded, err := demo.Load(ctx, pool, time.Now())
	if err != nil {
		return err
	}
	if loaded {
		fmt.Fprintf(stdout, "loaded %d labels and %d releases\n", demo.Labels, demo.Releases)
	} else {
		fmt.Fprintln(stdout, "the catalogue already has labels; nothing loaded")
	}
	return nil
}
