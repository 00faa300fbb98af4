package auth

import (
	"context"
	"net/http"
	"testing"
)

// A client that leaves during GET /user is a 499, as on /rest/v1, not a
// logged 500 (issue #26 item 8).
func TestGetUserClientGoneIs499(t *testing.T) {
	e := setup(t, nil)
	access := e.signUp("m@example.com", "password1").str("access_token")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := e.do(req{method: "GET", path: "/user", bearer: access, ctx: ctx})
	if r.Status != statusClientClosed {
		t.Fatalf("status %d, body %s", r.Status, r.Body)
	}
	e.do(req{method: "GET", path: "/user", bearer: access}).expect(t, http.StatusOK, "")
}
