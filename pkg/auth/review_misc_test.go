package auth

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/server"
)

// A client that leaves during GET /user is a 499, as on /rest/v1, not a
// logged 500 (issue #26 item 8).
func TestGetUserClientGoneIs499(t *testing.T) {
	e := setup(t, nil)
	logs := &logtest.Buffer{}
	e.h = server.New(server.Deps{Config: e.cfg, Log: slog.New(slog.NewTextHandler(logs, nil)), Ready: e.db.Pool.Ping, Auth: e.api.Register})
	access := e.signUp("m@example.com", "password1").str("access_token")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := e.do(req{method: "GET", path: "/user", bearer: access, ctx: ctx})
	if r.Status != statusClientClosed {
		t.Fatalf("status %d, body %s", r.Status, r.Body)
	}
	// The access line says 499, and nothing is logged as a server fault.
	if l := logs.String(); !strings.Contains(l, "path=/auth/v1/user status=499") || strings.Contains(l, "level=ERROR") {
		t.Errorf("log:\n%s", l)
	}
	e.do(req{method: "GET", path: "/user", bearer: access}).expect(t, http.StatusOK, "")
}

// generate_link's action_link carries GoTrue's parameter order and, as
// GoTrue's mailer writes it, the redirect as it is (issue #27).
func TestActionLinkParameterOrder(t *testing.T) {
	e := setupMail(t, nil, nil)
	e.signUp("m@example.com", "password1")
	r := e.admin(req{method: "POST", path: "/admin/generate_link", body: map[string]any{"type": "magiclink", "email": "m@example.com"}})
	r.expect(t, http.StatusOK, "")
	link := r.str("action_link")
	want := "http://labelbase.test/auth/v1/verify?token=" + r.str("hashed_token") + "&type=magiclink&redirect_to=http://labelbase.test"
	if link != want {
		t.Errorf("action_link = %s\nwant          %s", link, want)
	}
}
