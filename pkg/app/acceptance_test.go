package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/demo"
	"github.com/labelbase/labelbase/pkg/invite"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/token"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// The acceptance suites drive a real gateway on a throwaway database with
// the real supabase-js client (contract) and Debian's Chromium through
// Playwright Test (journeys, frontend/e2e). They need Node, the frontend's
// node_modules and a built frontend, so they run when LABELBASE_ACCEPTANCE=1,
// which the README's test command (go tool task test) sets.
func requireAcceptance(t *testing.T) {
	t.Helper()
	if os.Getenv("LABELBASE_ACCEPTANCE") != "1" {
		t.Skip("set LABELBASE_ACCEPTANCE=1 (go tool task test does) to run the supabase-js and browser suites")
	}
}

func TestContractSuites(t *testing.T) {
	requireAcceptance(t)
	runNodeSuite(t, "test:contract")
}

func TestBrowserJourneys(t *testing.T) {
	requireAcceptance(t)
	runNodeSuite(t, "test:e2e")
}

// runNodeSuite starts the assembled gateway on a fresh database with the
// demo catalogue and a many-use invite code, then runs an npm script of the
// frontend against it.
func runNodeSuite(t *testing.T, script string) { runNodeSuiteOn(t, script, nil) }

// runNodeSuiteOn is runNodeSuite on the database on returns (a superuser
// URL and pool on a fresh, migrated database, plus settings laid over the
// suite's: a pooler, say); nil is a fresh pgtest database.
func runNodeSuiteOn(t *testing.T, script string, on func(*testing.T) (*pgtest.DB, map[string]string)) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, extra := pgtest.New(t), map[string]string(nil)
	if on != nil {
		db, extra = on(t)
	}
	// The address is known before the config so that SITE_URL, where
	// recovery links point and redirect, is the gateway under test.
	srv := httptest.NewUnstartedServer(nil)
	defer srv.Close()
	env := map[string]string{
		"DATABASE_URL":   db.URL,
		"JWT_SECRET":     "acceptance-secret-acceptance-secret-0123456789",
		"BCRYPT_COST":    "4",
		"CRAWL_DISABLED": "true",
		// The suites sign up and in many times from one address.
		"RATE_LIMIT_TOKEN_PER_HOUR":       "100000",
		"RATE_LIMIT_SIGNUP_PER_5MIN":      "100000",
		"RATE_LIMIT_USER_UPDATE_PER_5MIN": "100000",
		// Recovery links point at the gateway under test; its mail is
		// captured at /_dev/inbox for the suites to read.
		"SITE_URL":              "http://" + srv.Listener.Addr().String(),
		"MAIL_DEV_INBOX":        "true",
		"RATE_LIMIT_EMAIL_SENT": "100000",
		"SMTP_MAX_FREQUENCY":    "0",
		"STORAGE_FILE_PATH":     t.TempDir(),
		// The mailing endpoints' per-IP and per-address limits (SECURITY.md).
		"RATE_LIMIT_OTP":                  "100000",
		"RATE_LIMIT_OTP_ADDRESS_PER_HOUR": "100000",
	}
	for k, v := range extra {
		env[k] = v
	}
	cfg := configtest.New(t, env)
	if _, err := demo.Load(ctx, db.Pool, time.Now()); err != nil {
		t.Fatal(err)
	}
	if script == "test:contract" {
		if err := createMFAProbe(ctx, db.Pool); err != nil {
			t.Fatal(err)
		}
		if err := createRealtimePolicies(ctx, db.Pool); err != nil {
			t.Fatal(err)
		}
		if err := createStorageFixtures(ctx, db.Pool); err != nil {
			t.Fatal(err)
		}
	}
	code, err := invite.Create(ctx, db.Pool, invite.Options{MaxUses: 100000, Note: "acceptance"})
	if err != nil {
		t.Fatal(err)
	}
	// The gateway signs with a stored ES256 key, as hosted Supabase does;
	// the suites' legacy HS256 API keys keep working beside it.
	keyStore, err := token.NewStore(db.Pool, cfg.SigningKeysEncryptionKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := keyStore.Rotate(ctx, token.ES256); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	bg, stopBG := context.WithCancel(ctx)
	a.StartBackground(bg, false)
	defer func() { stopBG(); a.Close() }()
	if script == "test:e2e" && !a.WebBuilt {
		t.Fatal("the web app is not built into this test binary: run `npm --prefix frontend run build` first")
	}
	srv.Config.Handler = a.Handler
	srv.Start()
	plain, plainApp := startPlainGateway(ctx, t, env, log)
	defer plain.Close()
	keysAdmin := httptest.NewServer(keysAdminHandler(keyStore, a, plainApp))
	defer keysAdmin.Close()

	root, artifacts := frontendRun(t)
	cmd := exec.CommandContext(ctx, "npm", "--prefix", filepath.Join(root, "frontend"), "run", "--silent", script)
	cmd.Env = append(os.Environ(),
		"LABELBASE_URL="+srv.URL,
		"LABELBASE_ANON_KEY="+cfg.AnonKey,
		"LABELBASE_SERVICE_ROLE_KEY="+cfg.ServiceRoleKey,
		"LABELBASE_PUBLISHABLE_KEY="+cfg.PublishableKey,
		"LABELBASE_SECRET_KEY="+cfg.SecretKey,
		"LABELBASE_KEYS_ADMIN_URL="+keysAdmin.URL,
		"LABELBASE_INVITE_CODE="+code.Code,
		"LABELBASE_PLAIN_URL="+plain.URL,
		"LABELBASE_ARTIFACTS="+artifacts,
	)
	// The runner's own report (node's, or Playwright's for the journeys)
	// goes straight to the terminal, so CI shows each test and the
	// pass/fail totals; a failing journey leaves its trace and screenshot
	// under LABELBASE_ARTIFACTS/e2e. Any failure makes npm exit non-zero.
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("npm run %s: %v", script, err)
	}
	fmt.Fprintf(os.Stdout, "npm run %s passed against %s\n", script, srv.URL)
}

// keysAdminHandler lets the keys contract suites do what `labelbase keys
// rotate`, `keys revoke KID` and `keys import [--kid K] [--current] FILE`
// do, followed by the reload every gateway runs on its own interval: POST
// /rotate answers the new kid, POST /revoke?kid=… removes a key, POST
// /import?kid=…&current=1 stores the keys of the body. It listens on
// loopback for this test only.
func keysAdminHandler(store *token.Store, a *app.App, others ...*app.App) http.Handler {
	// Every gateway reloads at once, as each would within
	// SIGNING_KEYS_RELOAD_INTERVAL: the suites go on at once.
	reload := func(ctx context.Context) error {
		err := a.ReloadKeys(ctx)
		for _, o := range others {
			err = errors.Join(err, o.ReloadKeys(ctx))
		}
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /import", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var parsed []token.ParsedKey
		if err == nil {
			parsed, err = token.ParseKeyFile(body, r.URL.Query().Get("kid"), a.Config.JWTSecret, time.Now())
		}
		if err == nil && r.URL.Query().Get("current") == "1" {
			var k *token.Key
			if k, err = token.SigningKey(parsed); err == nil {
				k.SignsFrom = time.Now()
			}
		}
		if err == nil {
			keys := make([]*token.Key, len(parsed))
			for i, p := range parsed {
				keys[i] = p.Key
			}
			err = store.Import(r.Context(), keys)
		}
		if err == nil {
			err = reload(r.Context())
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /rotate", func(w http.ResponseWriter, r *http.Request) {
		k, err := store.Rotate(r.Context(), token.ES256)
		if err == nil {
			err = reload(r.Context())
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, k.ID)
	})
	mux.HandleFunc("POST /revoke", func(w http.ResponseWriter, r *http.Request) {
		err := store.Revoke(r.Context(), r.URL.Query().Get("kid"))
		if err == nil {
			err = reload(r.Context())
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

// startPlainGateway starts a second gateway on the same database as an
// operator runs Labelbase for another app: no invite rule, and addresses
// confirmed by mail (INVITE_REQUIRED=false, MAILER_AUTOCONFIRM=false). The
// email-flow contract suite signs up and changes addresses there, and the
// Realtime and Storage suites check that what one gateway publishes or
// stores the other delivers. It runs its background work as a gateway
// does (schema and key reloads, Realtime's bus), without the crawler.
func startPlainGateway(ctx context.Context, t *testing.T, base map[string]string, log *slog.Logger) (*httptest.Server, *app.App) {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	env := map[string]string{}
	for k, v := range base {
		env[k] = v
	}
	env["SITE_URL"] = "http://" + srv.Listener.Addr().String()
	env["INVITE_REQUIRED"] = "false"
	env["MAILER_AUTOCONFIRM"] = "false"
	cfg := configtest.New(t, env)
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	bg, stopBG := context.WithCancel(ctx)
	a.StartBackground(bg, false)
	t.Cleanup(func() { stopBG(); a.Close() })
	srv.Config.Handler = a.Handler
	srv.Start()
	return srv, a
}

// frontendRun is the repository's root and where a frontend run keeps its
// artifacts: $LABELBASE_ARTIFACTS, else frontend/test-results.
func frontendRun(t *testing.T) (root, artifacts string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	artifacts = os.Getenv("LABELBASE_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join(root, "frontend", "test-results")
	}
	return root, artifacts
}
