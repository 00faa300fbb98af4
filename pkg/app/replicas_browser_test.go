package app_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestReadYourWritesInTheBrowser runs frontend/e2e/replicas.spec.ts in
// Chromium against a gateway with two replicas whose replay is paused: the
// unmodified supabase-js on the gateway's origin reads its own write (the
// cookie sends the read to the primary), and on another origin it does
// not (docs/scaling.md says what a cross-origin client gets).
func TestReadYourWritesInTheBrowser(t *testing.T) {
	requireAcceptance(t)
	s := pgtest.SharedReplicaSet(t)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Exec(ctx, `CREATE TABLE public.ryw_browser (id bigserial PRIMARY KEY, body text NOT NULL);
		GRANT SELECT, INSERT ON public.ryw_browser TO anon;
		GRANT USAGE ON SEQUENCE public.ryw_browser_id_seq TO anon;`)
	c.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s.WaitReplayed(t)
	g := startGateway(t, s.URL(), map[string]string{
		"DATABASE_REPLICA_URLS":  s.On(s.Replicas[0]) + "," + s.On(s.Replicas[1]),
		"REPLICA_CHECK_INTERVAL": "100ms",
	}, false, nil)
	waitHealthy(t, g.app, 2, 5*time.Second)
	// Another origin: a blank page on another port.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><title>elsewhere</title>"))
	}))
	defer other.Close()
	pauseReplay(t, s, true)
	defer pauseReplay(t, s, false)

	root, artifacts := frontendRun(t)
	// A directory of its own, so that the journeys' report and traces
	// (TestBrowserJourneys, same run) are not overwritten.
	artifacts = filepath.Join(artifacts, "replicas")
	cmd := exec.CommandContext(ctx, "npm", "--prefix", filepath.Join(root, "frontend"), "exec", "--",
		"playwright", "test", "--project=replicas")
	cmd.Dir = filepath.Join(root, "frontend")
	cmd.Env = append(os.Environ(),
		"LABELBASE_URL="+g.srv.URL,
		"LABELBASE_ANON_KEY="+g.app.Config.AnonKey,
		"LABELBASE_REPLICA_TABLE=ryw_browser",
		"LABELBASE_OTHER_ORIGIN="+other.URL,
		"LABELBASE_ARTIFACTS="+artifacts,
	)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("playwright test e2e/replicas.spec.ts: %v", err)
	}
}
