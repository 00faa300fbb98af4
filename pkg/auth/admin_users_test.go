package auth

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/server"
)

// setupMail is setup with a mailer (nil: mail off).
func setupMail(t testing.TB, env map[string]string, m mail.Sender) *testEnv {
	t.Helper()
	e := setup(t, env)
	api, err := New(Deps{Config: e.cfg, Pool: e.db.Pool, Log: slog.New(slog.DiscardHandler), Now: e.clock.Now, Mailer: m})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(testLogWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
	e.api = api
	e.h = server.New(server.Deps{Config: e.cfg, Log: log, Ready: e.db.Pool.Ping, Auth: api.Register, Routes: api.RegisterOpen})
	return e
}

// admin sends r with the service_role key, as supabase-js's admin client does.
func (e *testEnv) admin(r req) *response {
	e.t.Helper()
	r.bearer = e.cfg.ServiceRoleKey
	r.headers = map[string]string{"apikey": e.cfg.ServiceRoleKey}
	return e.do(r)
}

func (e *testEnv) createUser(body map[string]any) *response {
	e.t.Helper()
	r := e.admin(req{method: "POST", path: "/admin/users", body: body})
	r.expect(e.t, http.StatusOK, "")
	return r
}

func TestAdminRefusesNonServiceRole(t *testing.T) {
	e := setup(t, nil)
	access := e.signUp("member@example.com", "password1").str("access_token")
	for name, bearer := range map[string]string{"anon key": e.cfg.AnonKey, "member token": access} {
		for _, r := range []req{
			{method: "GET", path: "/admin/users"},
			{method: "POST", path: "/admin/users", body: map[string]any{"email": "x@example.com"}},
			{method: "GET", path: "/admin/users/00000000-0000-0000-0000-000000000001"},
			{method: "PUT", path: "/admin/users/00000000-0000-0000-0000-000000000001", body: map[string]any{}},
			{method: "DELETE", path: "/admin/users/00000000-0000-0000-0000-000000000001"},
			{method: "POST", path: "/admin/generate_link", body: map[string]any{"type": "recovery", "email": "member@example.com"}},
		} {
			r.bearer = bearer
			t.Run(name+" "+r.method+" "+r.path, func(t *testing.T) {
				e.do(r).expect(t, http.StatusForbidden, codeNotAdmin)
			})
		}
	}
	e.do(req{method: "GET", path: "/admin/users", bearer: "not.a.jwt"}).expect(t, http.StatusForbidden, codeBadJWT)
	if n := e.count(`SELECT count(*) FROM auth.users WHERE email = 'x@example.com'`); n != 0 {
		t.Fatalf("a refused create wrote %d users", n)
	}
}

func TestAdminCreateUser(t *testing.T) {
	e := setup(t, nil)
	r := e.createUser(map[string]any{
		"email": " New@Example.com ", "password": "password1", "email_confirm": true,
		"user_metadata": map[string]any{"name": "New"}, "app_metadata": map[string]any{"plan": "gold"},
	})
	if r.str("email") != "new@example.com" || r.str("email_confirmed_at") == "" {
		t.Fatalf("created %s", r.Body)
	}
	if obj(t, r.JSON, "user_metadata")["name"] != "New" {
		t.Errorf("user_metadata = %v", r.JSON["user_metadata"])
	}
	app := obj(t, r.JSON, "app_metadata")
	if app["plan"] != "gold" || app["provider"] != "email" {
		t.Errorf("app_metadata = %v", app)
	}
	// No invite code was needed, none was consumed, and the member signs in.
	if n := e.count(`SELECT count(*) FROM public.invite_redemptions`); n != 0 {
		t.Errorf("%d redemptions", n)
	}
	e.signIn("new@example.com", "password1")
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries
		WHERE payload->>'action' = 'user_signedup' AND payload->>'actor_username' = 'service_role'
		AND payload->'traits'->>'user_email' = 'new@example.com'`); n != 1 {
		t.Errorf("%d admin sign-up audit entries", n)
	}

	// Ordinary sign-ups still need a code: the marker is per transaction.
	e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "nocode@example.com", "password": "password1"}}).
		expect(t, http.StatusUnprocessableEntity, codeInvalidInviteCode)

	// Unconfirmed unless email_confirm is set.
	e.createUser(map[string]any{"email": "pending@example.com", "password": "password1"})
	e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": "pending@example.com", "password": "password1"}}).
		expect(t, http.StatusBadRequest, codeEmailNotConfirmed)

	for name, tc := range map[string]struct {
		body   any
		status int
		code   string
	}{
		"duplicate":    {map[string]any{"email": "NEW@example.com"}, 422, codeEmailExists},
		"no email":     {map[string]any{"password": "password1"}, 400, codeValidationFailed},
		"bad email":    {map[string]any{"email": "not-an-email"}, 400, codeValidationFailed},
		"weak":         {map[string]any{"email": "w@example.com", "password": "123"}, 422, codeWeakPassword},
		"phone":        {map[string]any{"phone": "+15555550100"}, 422, codePhoneProviderDisabled},
		"bad ban":      {map[string]any{"email": "b@example.com", "ban_duration": "forever"}, 400, codeValidationFailed},
		"admin role":   {map[string]any{"email": "r@example.com", "role": "service_role"}, 400, codeValidationFailed},
		"bad json":     {`{"email":`, 400, codeBadJSON},
		"meta not obj": {`{"email":"m@example.com","user_metadata":[1]}`, 400, codeBadJSON},
	} {
		t.Run(name, func(t *testing.T) {
			e.admin(req{method: "POST", path: "/admin/users", body: tc.body}).expect(t, tc.status, tc.code)
		})
	}
	if n := e.count(`SELECT count(*) FROM auth.users`); n != 2 {
		t.Fatalf("%d users after refused creates, want 2", n)
	}
}

func TestAdminListUsersPages(t *testing.T) {
	e := setup(t, nil)
	for _, m := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		e.createUser(map[string]any{"email": m})
		e.clock.Advance(1)
	}
	r := e.admin(req{method: "GET", path: "/admin/users?page=1&per_page=2"})
	r.expect(t, http.StatusOK, "")
	if got := r.Header.Get("X-Total-Count"); got != "3" {
		t.Errorf("X-Total-Count = %q", got)
	}
	link := r.Header.Get("Link")
	for _, want := range []string{
		`<http://labelbase.test/auth/v1/admin/users?page=2&per_page=2>; rel="next"`,
		`<http://labelbase.test/auth/v1/admin/users?page=2&per_page=2>; rel="last"`,
	} {
		if !strings.Contains(link, want) {
			t.Errorf("Link = %q, want it to contain %q", link, want)
		}
	}
	users := r.JSON["users"].([]any)
	if len(users) != 2 || r.str("aud") != "authenticated" {
		t.Fatalf("page 1: %s", r.Body)
	}
	r2 := e.admin(req{method: "GET", path: "/admin/users?page=2&per_page=2"})
	r2.expect(t, http.StatusOK, "")
	if l := r2.Header.Get("Link"); strings.Contains(l, `rel="next"`) {
		t.Errorf("last page has a next link: %q", l)
	}
	seen := map[string]bool{}
	for _, u := range append(users, r2.JSON["users"].([]any)...) {
		seen[u.(map[string]any)["email"].(string)] = true
	}
	if len(seen) != 3 {
		t.Errorf("pages cover %v", seen)
	}
	if e.admin(req{method: "GET", path: "/admin/users"}).Header.Get("X-Total-Count") != "3" {
		t.Error("default page")
	}
	for _, q := range []string{"page=x", "per_page=-1", "page=1.5"} {
		e.admin(req{method: "GET", path: "/admin/users?" + q}).expect(t, http.StatusBadRequest, codeValidationFailed)
	}
}

func TestAdminGetUpdateDeleteUser(t *testing.T) {
	e := setup(t, nil)
	id := e.createUser(map[string]any{"email": "m@example.com", "password": "password1", "email_confirm": true,
		"app_metadata": map[string]any{"keep": 1, "drop": 2}}).str("id")
	other := e.createUser(map[string]any{"email": "o@example.com", "email_confirm": true}).str("id")

	g := e.admin(req{method: "GET", path: "/admin/users/" + id})
	g.expect(t, http.StatusOK, "")
	if g.str("id") != id || g.str("email") != "m@example.com" {
		t.Fatalf("get %s", g.Body)
	}
	e.admin(req{method: "GET", path: "/admin/users/nope"}).expect(t, http.StatusNotFound, codeValidationFailed)
	e.admin(req{method: "GET", path: "/admin/users/00000000-0000-0000-0000-00000000abcd"}).expect(t, http.StatusNotFound, codeUserNotFound)

	u := e.admin(req{method: "PUT", path: "/admin/users/" + id, body: map[string]any{
		"app_metadata": map[string]any{"drop": nil, "role_name": "editor"}, "user_metadata": map[string]any{"n": 1},
		"password": "password2",
	}})
	u.expect(t, http.StatusOK, "")
	app := obj(t, u.JSON, "app_metadata")
	if app["keep"] == nil || app["drop"] != nil || app["role_name"] != "editor" || app["provider"] != "email" {
		t.Errorf("app_metadata merged to %v", app)
	}
	e.signIn("m@example.com", "password2")

	// A ban refuses sign-in and refresh; "none" lifts it.
	refresh := e.signIn("m@example.com", "password2").str("refresh_token")
	e.admin(req{method: "PUT", path: "/admin/users/" + id, body: map[string]any{"ban_duration": "24h"}}).expect(t, http.StatusOK, "")
	e.do(req{method: "POST", path: "/token?grant_type=password", body: map[string]any{"email": "m@example.com", "password": "password2"}}).
		expect(t, http.StatusBadRequest, codeInvalidCredentials)
	e.refresh(refresh).expect(t, http.StatusBadRequest, codeUserBanned)
	e.admin(req{method: "PUT", path: "/admin/users/" + id, body: map[string]any{"ban_duration": "none"}}).expect(t, http.StatusOK, "")
	e.signIn("m@example.com", "password2")

	for name, tc := range map[string]struct {
		path   string
		body   any
		status int
		code   string
	}{
		"bad ban":     {id, map[string]any{"ban_duration": "1 day"}, 400, codeValidationFailed},
		"taken email": {id, map[string]any{"email": "o@example.com"}, 422, codeEmailExists},
		"weak":        {id, map[string]any{"password": "1"}, 422, codeWeakPassword},
		"bad id":      {"x", map[string]any{}, 404, codeValidationFailed},
		"unknown":     {"00000000-0000-0000-0000-00000000abcd", map[string]any{}, 404, codeUserNotFound},
		"role":        {id, map[string]any{"role": "service_role"}, 400, codeValidationFailed},
	} {
		t.Run(name, func(t *testing.T) {
			e.admin(req{method: "PUT", path: "/admin/users/" + tc.path, body: tc.body}).expect(t, tc.status, tc.code)
		})
	}
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'user_modified'
		AND payload->'traits'->>'user_id' = $1`, id); n != 3 {
		t.Errorf("%d user_modified entries, want 3", n)
	}

	d := e.admin(req{method: "DELETE", path: "/admin/users/" + id})
	d.expect(t, http.StatusOK, "")
	if string(d.Body) != "{}\n" && string(d.Body) != "{}" {
		t.Errorf("delete body %q", d.Body)
	}
	e.admin(req{method: "GET", path: "/admin/users/" + id}).expect(t, http.StatusNotFound, codeUserNotFound)
	e.admin(req{method: "DELETE", path: "/admin/users/" + id}).expect(t, http.StatusNotFound, codeUserNotFound)
	e.admin(req{method: "DELETE", path: "/admin/users/bad"}).expect(t, http.StatusNotFound, codeValidationFailed)
	if n := e.count(`SELECT count(*) FROM auth.sessions WHERE user_id = $1::uuid`, id); n != 0 {
		t.Errorf("%d sessions left", n)
	}

	// A soft delete keeps the row but frees the email.
	e.admin(req{method: "DELETE", path: "/admin/users/" + other, body: map[string]any{"should_soft_delete": true}}).expect(t, http.StatusOK, "")
	if n := e.count(`SELECT count(*) FROM auth.users WHERE id = $1::uuid AND deleted_at IS NOT NULL AND email IS NULL`, other); n != 1 {
		t.Errorf("soft delete left %d rows", n)
	}
	e.createUser(map[string]any{"email": "o@example.com"})
	if n := e.count(`SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'user_deleted'`); n != 2 {
		t.Errorf("%d user_deleted entries", n)
	}
}

// The marker that lets the admin path skip the invite check does not leak
// to the pooled connection afterwards.
func TestAdminCreateMarkerIsTransactionLocal(t *testing.T) {
	e := setup(t, nil)
	e.createUser(map[string]any{"email": "a@example.com"})
	var v string
	if err := e.db.Pool.QueryRow(t.Context(), `SELECT coalesce(current_setting($1, true), '')`, adminCreateMarker).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v == "on" {
		t.Fatal("marker still set on a pooled connection")
	}
	code := pgtest.CreateInvite(t, e.db.Pool, 1)
	e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "b@example.com", "password": "password1",
		"data": map[string]any{"invite_code": code}}}).expect(t, http.StatusOK, "")
	if n := e.count(`SELECT count(*) FROM public.invite_redemptions`); n != 1 {
		t.Errorf("%d redemptions", n)
	}
}
