package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/token"
)

// keysConfig is the configuration `labelbase keys` needs: the secrets from
// the environment or, next to a `labelbase dev`, the ones it uses
// (cliGetenv).
func keysConfig(log *slog.Logger) (*config.Config, error) {
	getenv := cliGetenv(log)
	return config.Load(func(k string) string {
		v := getenv(k)
		if k == "DATABASE_URL" && v == "" && os.Getenv(k+"_FILE") == "" {
			// Only the API keys need no database; openPool finds the
			// real one (or the dev one) when it is needed.
			return "postgres://unused/unused"
		}
		return v
	})
}

func runKeys(ctx context.Context, args []string, stdout io.Writer, log *slog.Logger) error {
	cfg, err := keysConfig(log)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		return printKeys(ctx, cfg, stdout, log)
	}
	switch args[0] {
	case "rotate":
		return rotateKey(ctx, cfg, args[1:], stdout, log)
	case "import":
		return importKeys(ctx, cfg, args[1:], stdout, log)
	case "use":
		return useKey(ctx, cfg, args[1:], stdout, log)
	case "revoke":
		return revokeKey(ctx, cfg, args[1:], stdout, log)
	default:
		return usageError{fmt.Sprintf("unknown keys action %q", args[0])}
	}
}

// rotateKey is `keys rotate [--alg ES256|RS256]`: a new stored key signs
// from now on, and it prints its kid alone for scripts.
func rotateKey(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("keys rotate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	alg := fs.String("alg", token.ES256, "ES256 or RS256")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if *alg != token.ES256 && *alg != token.RS256 {
		return usageError{"--alg must be ES256 or RS256"}
	}
	store, done, err := keyStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer done()
	k, err := store.Rotate(ctx, *alg)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, k.ID)
	log.Info("the new signing key signs from now on; tokens signed before stay valid until they expire",
		"kid", k.ID, "alg", k.Alg, "running_gateways_reload_within", cfg.SigningKeysReload)
	warnConfiguredSigner(cfg, log)
	return nil
}

// useKey is `keys use KID`: the stored key signs from now on (one imported
// to verify only, or one a rotation replaced). The legacy key is refused:
// it signs only when no stored key does.
func useKey(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) != 1 {
		return usageError{"keys use needs the key id (kid)"}
	}
	kid := args[0]
	if kid == token.LegacyKeyID(cfg.JWTSecret) {
		return errors.New("the legacy HS256 key signs when no stored key does: revoke the stored keys that sign, or rotate")
	}
	store, done, err := keyStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer done()
	switch err := store.Use(ctx, kid); {
	case errors.Is(err, token.ErrNoSuchKey):
		return fmt.Errorf("no stored signing key %q", kid)
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, "signing with", kid)
	log.Info("the key signs from now on; tokens signed by the others stay valid",
		"kid", kid, "running_gateways_reload_within", cfg.SigningKeysReload)
	warnConfiguredSigner(cfg, log)
	return nil
}

// revokeKey is `keys revoke KID`: the stored key is deleted, so its tokens
// are refused from the gateways' next reload. The legacy key is JWT_SECRET
// itself and is refused (token.ErrLegacyKey).
func revokeKey(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer, log *slog.Logger) error {
	if len(args) != 1 {
		return usageError{"keys revoke needs the key id (kid)"}
	}
	kid := args[0]
	if kid == token.LegacyKeyID(cfg.JWTSecret) {
		return token.ErrLegacyKey
	}
	store, done, err := keyStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer done()
	if err := store.Revoke(ctx, kid); err != nil {
		if errors.Is(err, token.ErrNoSuchKey) {
			return fmt.Errorf("no signing key %q", kid)
		}
		return err
	}
	fmt.Fprintln(stdout, "revoked")
	return nil
}

func keyStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (*token.Store, func(), error) {
	pool, err := openPool(ctx, log)
	if err != nil {
		return nil, nil, err
	}
	store, err := token.NewStore(pool, cfg.SigningKeysEncryptionKey)
	if err != nil {
		pool.Close()
		return nil, nil, err
	}
	return store, pool.Close, nil
}

// printKeys prints the API keys, which need only JWT_SECRET, then the
// signing keys from the database when it answers.
func printKeys(ctx context.Context, cfg *config.Config, stdout io.Writer, log *slog.Logger) error {
	fmt.Fprintf(stdout, "ANON_KEY=%s\nSERVICE_ROLE_KEY=%s\nPUBLISHABLE_KEY=%s\nSECRET_KEY=%s\n",
		cfg.AnonKey, cfg.ServiceRoleKey, cfg.PublishableKey, cfg.SecretKey)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var stored []*token.Key
	store, done, err := keyStore(ctx, cfg, log)
	if err == nil {
		defer done()
		stored, err = store.Load(ctx)
	}
	fmt.Fprintln(stdout, "\nJWT signing keys (the current key signs new tokens):")
	ks := token.NewKeySet(cfg.JWTSecret, cfg.JWTKeys...)
	ks.Replace(stored)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KID\tALG\tCREATED\tSTATUS")
	cur := ks.Current()
	for _, k := range ks.Keys() {
		status, created := "verifies", k.CreatedAt.UTC().Format(time.RFC3339)
		if k == cur {
			status = "current"
		}
		switch {
		case k.Configured():
			created = "JWT_KEYS"
		case k.Alg == token.HS256:
			created = "JWT_SECRET"
			status += " (legacy)"
		case k.Signer() == nil:
			status += " (public key only)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k.ID, k.Alg, created, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err != nil {
		fmt.Fprintf(stdout, "(stored keys not shown: %v)\n", err)
	}
	return nil
}
