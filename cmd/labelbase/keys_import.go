package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/token"
)

// maxKeyFile bounds what `keys import` reads: a JWK set of a few RSA keys
// is a few kilobytes.
const maxKeyFile = 1 << 20

// importKeys is `labelbase keys import [--kid KID] [--current] FILE`: the
// keys of FILE (a JWK, a JWK set, a JSON array of JWKs as in JWT_KEYS, or
// a PEM key; "-" reads stdin) are stored as `keys rotate` stores its own,
// sealed, with their kid. They verify tokens signed before the move from
// the next reload on; with --current the private key to sign with (the
// one whose key_ops say "sign", or the only one) signs too, else the
// operator switches later with `keys use KID`. Either every key is stored
// or none: a kid already in use, a public key asked to sign or an
// unsupported key stops the import before anything is written.
func importKeys(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("keys import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	kid := fs.String("kid", "", "the kid of a single key (a PEM key has none; default: its RFC 7638 thumbprint)")
	current := fs.Bool("current", false, "the imported key signs new tokens from now on")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	if fs.NArg() != 1 {
		return usageError{"keys import needs one FILE (a JWK, a JWK set or a PEM key; - for stdin)"}
	}
	data, err := readKeyFile(fs.Arg(0))
	if err != nil {
		return err
	}
	parsed, err := token.ParseKeyFile(data, *kid, cfg.JWTSecret, time.Now())
	if err != nil {
		return fmt.Errorf("keys import %s: %w", fs.Arg(0), err)
	}
	var signer *token.Key
	if *current {
		if signer, err = token.SigningKey(parsed); err != nil {
			return fmt.Errorf("keys import %s --current: %w", fs.Arg(0), err)
		}
		signer.SignsFrom = time.Now()
	}
	keys := make([]*token.Key, len(parsed))
	taken := map[string]string{token.LegacyKeyID(cfg.JWTSecret): "the legacy key of JWT_SECRET"}
	for _, k := range cfg.JWTKeys {
		taken[k.ID] = "a key of JWT_KEYS"
	}
	for i, p := range parsed {
		if what, ok := taken[p.Key.ID]; ok {
			return fmt.Errorf("keys import %s: kid %q is %s already; nothing was imported", fs.Arg(0), p.Key.ID, what)
		}
		keys[i] = p.Key
	}
	store, done, err := keyStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer done()
	if err := store.Import(ctx, keys); err != nil {
		if errors.Is(err, token.ErrDuplicateKey) {
			return fmt.Errorf("keys import %s: %w; nothing was imported", fs.Arg(0), err)
		}
		return err
	}
	for _, k := range keys {
		role := "verifies"
		if k == signer {
			role = "current"
		}
		fmt.Fprintf(stdout, "%s\t%s\t%s\n", k.ID, k.Alg, role)
	}
	if signer != nil {
		log.Info("the imported key signs from now on", "kid", signer.ID, "running_gateways_reload_within", cfg.SigningKeysReload)
		warnConfiguredSigner(cfg, log)
	} else {
		log.Info("imported keys verify tokens from the next reload on; `labelbase keys use KID` makes one of them sign",
			"keys", len(keys), "running_gateways_reload_within", cfg.SigningKeysReload)
	}
	return nil
}

func readKeyFile(name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = os.Stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxKeyFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxKeyFile {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a key file", name, maxKeyFile)
	}
	return b, nil
}

// warnConfiguredSigner says when JWT_KEYS names the signer: it signs
// whatever the database holds, as GOTRUE_JWT_KEYS does in GoTrue.
func warnConfiguredSigner(cfg *config.Config, log *slog.Logger) {
	for _, k := range cfg.JWTKeys {
		if !k.VerifiesOnly() {
			log.Warn("JWT_KEYS names the signing key, which signs whatever the database holds; remove its key_ops \"sign\" to let the stored key sign",
				"kid", k.ID)
			return
		}
	}
}
