package auth

import (
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/server"
)

// observed collects what the API tells its Observe callback.
type observed struct {
	mu     sync.Mutex
	events []string
}

func (o *observed) add(grant, outcome string) {
	o.mu.Lock()
	o.events = append(o.events, grant+"/"+outcome)
	o.mu.Unlock()
}

func (o *observed) has(ev string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Contains(o.events, ev)
}

// setupObserved is setupMail with an Observe callback.
func setupObserved(t *testing.T, env map[string]string, in *mail.Inbox) (*testEnv, *observed) {
	t.Helper()
	e := setup(t, env)
	o := &observed{}
	api, err := New(Deps{Config: e.cfg, Pool: e.db.Pool, Log: slog.New(slog.DiscardHandler), Now: e.clock.Now, Mailer: in, Observe: o.add})
	if err != nil {
		t.Fatal(err)
	}
	e.api = api
	e.h = server.New(server.Deps{Config: e.cfg, Log: slog.New(slog.DiscardHandler), Ready: e.db.Pool.Ping, Auth: api.Register, Routes: api.RegisterOpen})
	return e, o
}

// Security review M1, with the defaults: 32 recoveries for made-up
// addresses from one IP spend neither the instance's mail budget nor
// anyone else's recovery; the per-IP limit stops the stranger and says so.
func TestMailBudgetCannotBeDrainedByStrangers(t *testing.T) {
	in := mail.NewInbox(100)
	e, o := setupObserved(t, nil, in)
	e.signUp("alice@example.com", "password1")
	e.signUp("bob@example.com", "password1")
	var statuses []int
	for i := range 32 {
		r := e.do(req{method: "POST", path: "/recover", ip: "203.0.113.9", body: map[string]any{"email": fmt.Sprintf("nobody-%d@nowhere.invalid", i)}})
		statuses = append(statuses, r.Status)
	}
	if statuses[0] != http.StatusOK || statuses[31] != http.StatusTooManyRequests {
		t.Fatalf("statuses %v", statuses)
	}
	if !o.has("mail_ip/rate_limited") {
		t.Errorf("the per-IP limit was not reported: %v", o.events)
	}
	if n := e.count(`SELECT count(*) FROM auth.rate_limits WHERE bucket = 'email_sent' AND tokens < 29.5`); n != 0 {
		t.Error("mail to nobody was charged to the budget")
	}
	e.do(req{method: "POST", path: "/recover", ip: "198.51.100.1", body: map[string]any{"email": "alice@example.com"}}).expect(t, http.StatusOK, "")
	e.do(req{method: "POST", path: "/otp", ip: "198.51.100.2", body: map[string]any{"email": "bob@example.com"}}).expect(t, http.StatusOK, "")
	if _, _, n := e.mailed(in, "alice@example.com"); n != 1 {
		t.Error("alice's recovery was not mailed")
	}
	if _, _, n := e.mailed(in, "bob@example.com"); n != 1 {
		t.Error("bob's magic link was not mailed")
	}
	// Sent mail is charged: the budget lost exactly two.
	var tokens float64
	if err := e.db.Pool.QueryRow(t.Context(), `SELECT tokens FROM auth.rate_limits WHERE bucket = 'email_sent'`).Scan(&tokens); err != nil || tokens > 28.01 || tokens < 27.99 {
		t.Errorf("budget after two mails: %v, %v", tokens, err)
	}
	// The per-address limit: many IPs asking about one address are stopped
	// there, members and strangers alike.
	for _, addr := range []string{"alice@example.com", "ghost@example.com"} {
		var last *response
		for i := range 11 {
			last = e.do(req{method: "POST", path: "/recover", ip: fmt.Sprintf("192.0.2.%d", i+1), body: map[string]any{"email": addr}})
		}
		last.expect(t, http.StatusTooManyRequests, codeOverEmailSendRateLimit)
	}
	if !o.has("mail_address/rate_limited") {
		t.Errorf("the per-address limit was not reported: %v", o.events)
	}
}

// Security review M2: /signup without autoconfirm, /otp and /resend answer
// registered and unknown addresses alike.
func TestNoAccountEnumeration(t *testing.T) {
	in := mail.NewInbox(100)
	e := setupMail(t, map[string]string{"MAILER_AUTOCONFIRM": "false", "MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "alice@example.com", "password": "password1", "email_confirm": true})
	e.createUser(map[string]any{"email": "mallory@example.com", "password": "password1", "email_confirm": true})
	// The review's exact requests: no invite code.
	a := e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "alice@example.com", "password": "whatever123"}})
	n := e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "nobody2@example.com", "password": "whatever123"}})
	a.expect(t, http.StatusUnprocessableEntity, codeInvalidInviteCode)
	n.expect(t, http.StatusUnprocessableEntity, codeInvalidInviteCode)
	if string(a.Body) != string(n.Body) {
		t.Errorf("signup bodies differ: %s / %s", a.Body, n.Body)
	}
	// With a usable code both get a user of the same shape, and the decoy
	// does not use the code up.
	code := pgtest.CreateInvite(t, e.db.Pool, 2)
	a = e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "alice@example.com", "password": "whatever123", "data": map[string]any{"invite_code": code}}})
	n = e.do(req{method: "POST", path: "/signup", body: map[string]any{"email": "nobody3@example.com", "password": "whatever123", "data": map[string]any{"invite_code": code}}})
	a.expect(t, http.StatusOK, "")
	n.expect(t, http.StatusOK, "")
	if !sameKeys(a.JSON, n.JSON) || !sameKeys(obj(t, a.JSON["identities"].([]any)[0].(map[string]any), "identity_data"),
		obj(t, n.JSON["identities"].([]any)[0].(map[string]any), "identity_data")) {
		t.Errorf("signup shapes differ:\n%s\n%s", a.Body, n.Body)
	}
	if uses := e.count(`SELECT uses FROM public.invite_codes WHERE code = $1`, code); uses != 1 {
		t.Errorf("invite uses = %d, want 1 (the decoy must not use it)", uses)
	}
	// /otp, twice each within SMTP_MAX_FREQUENCY.
	for _, addr := range []string{"mallory@example.com", "nobody1@example.com"} {
		for range 2 {
			r := e.do(req{method: "POST", path: "/otp", body: map[string]any{"email": addr}})
			r.expect(t, http.StatusOK, "")
			if string(r.Body) != "{}" && string(r.Body) != "{}\n" {
				t.Errorf("otp %s: %s", addr, r.Body)
			}
		}
	}
	if _, _, n := e.mailed(in, "nobody1@example.com"); n != 0 {
		t.Error("mailed an address without an invite")
	}
	// /resend email_change: a pending change and none, twice each.
	tok := e.signIn("mallory@example.com", "password1").str("access_token")
	e.do(req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "newmal@example.com"}}).expect(t, http.StatusOK, "")
	e.clock.Advance(61 * time.Second)
	for _, addr := range []string{"mallory@example.com", "bob@example.com"} {
		for range 2 {
			e.do(req{method: "POST", path: "/resend", body: map[string]any{"type": "email_change", "email": addr}}).expect(t, http.StatusOK, "")
		}
	}
}

func sameKeys(a, b map[string]any) bool {
	keys := func(m map[string]any) string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	return keys(a) == keys(b)
}

// Security review L4: an anonymous resend re-mails the side of a secure
// email change still waiting, and does not undo the confirmed side.
func TestResendKeepsHalfConfirmedEmailChange(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAILER_AUTOCONFIRM": "false", "MAIL_DEV_INBOX": "true"}, in)
	e.createUser(map[string]any{"email": "mallory@example.com", "password": "password1", "email_confirm": true})
	tok := e.signIn("mallory@example.com", "password1").str("access_token")
	e.do(req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "newmal@example.com"}}).expect(t, http.StatusOK, "")
	_, newCode, _ := e.mailed(in, "newmal@example.com")
	first := e.verifyCode("newmal@example.com", newCode, "email_change")
	first.expect(t, http.StatusOK, "")
	if first.str("msg") != singleConfirmationAccepted {
		t.Fatalf("first: %s", first.Body)
	}
	e.clock.Advance(61 * time.Second)
	e.do(req{method: "POST", path: "/resend", body: map[string]any{"type": "email_change", "email": "mallory@example.com"}}).expect(t, http.StatusOK, "")
	if _, _, n := e.mailed(in, "newmal@example.com"); n != 1 {
		t.Errorf("the confirmed side was mailed again (%d mails)", n)
	}
	_, oldCode, n := e.mailed(in, "mallory@example.com")
	if n != 2 {
		t.Fatalf("the pending side was not re-mailed (%d mails)", n)
	}
	second := e.verifyCode("mallory@example.com", oldCode, "email_change")
	second.expect(t, http.StatusOK, "")
	if second.str("access_token") == "" {
		t.Fatalf("the change did not complete: %s", second.Body)
	}
	e.signIn("newmal@example.com", "password1")
}

// Security review L5: with MAILER_AUTOCONFIRM=true (the default) and mail
// configured, a new address still needs proof; without mail it moves at
// once, as GoTrue's autoconfirm does.
func TestEmailChangeNeedsProofWhenMailWorks(t *testing.T) {
	in := mail.NewInbox(50)
	e := setupMail(t, map[string]string{"MAIL_DEV_INBOX": "true"}, in)
	e.signUp("mallory@example.com", "password1")
	tok := e.signIn("mallory@example.com", "password1").str("access_token")
	r := e.do(req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "future-member@example.org"}})
	r.expect(t, http.StatusOK, "")
	if r.str("email") != "mallory@example.com" || r.str("new_email") != "future-member@example.org" {
		t.Fatalf("moved without proof: %s", r.Body)
	}
	// The code mailed to mallory's own address does not move it alone.
	_, own, _ := e.mailed(in, "mallory@example.com")
	if r := e.verifyCode("mallory@example.com", own, "email_change"); r.Status != http.StatusOK || r.str("msg") != singleConfirmationAccepted {
		t.Fatalf("own-side confirmation: %d %s", r.Status, r.Body)
	}
	e.signIn("mallory@example.com", "password1")
	e.admin(req{method: "POST", path: "/invite", body: map[string]any{"email": "future-member@example.org"}}).expect(t, http.StatusOK, "")
	if _, _, n := e.mailed(in, "future-member@example.org"); n < 2 {
		t.Errorf("mails to the new address: %d, want the change and the invite", n)
	}
	off := setupMail(t, nil, nil)
	off.signUp("m@example.com", "password1")
	tok = off.signIn("m@example.com", "password1").str("access_token")
	r = off.do(req{method: "PUT", path: "/user", bearer: tok, body: map[string]any{"email": "n@example.com"}})
	r.expect(t, http.StatusOK, "")
	if r.str("email") != "n@example.com" {
		t.Fatalf("without mail: %s", r.Body)
	}
}
