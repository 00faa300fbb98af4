package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/logtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Issue #26 over the wire, on an assembled gateway without mail: start-up
// says once that mail is off; a mail limit that bites is logged and counted
// in labelbase_auth_events_total; and the security review's exact L2
// requests over /rest/v1 (label 1 hidden, release 74 its) cannot tell a
// hidden id from a missing one, nor read the hidden label's URL in the
// submission queue.
func TestSecurityReviewOverTheWire(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	logs := &logtest.Buffer{}
	g := startGateway(t, db.URL, map[string]string{"RATE_LIMIT_OTP": "1"}, false, slog.New(slog.NewTextHandler(logs, nil)))

	// Item 8: one start-up line about mail, the accurate one.
	if n := strings.Count(logs.String(), "mail is not configured"); n != 1 || strings.Contains(logs.String(), "recovery mail is off") {
		t.Errorf("start-up lines about mail (%d):\n%s", n, logs.String())
	}

	// Item 3: the per-IP mail limit bites on the second request.
	for i, want := range []int{200, 429} {
		if status, b := g.call(t, "POST", "/auth/v1/recover", `{"email":"nobody@nowhere.invalid"}`); status != want {
			t.Fatalf("recover %d: %d %s", i, status, b)
		}
	}
	if got := counter(t, g.app.Metrics.Registry(), "labelbase_auth_events_total", map[string]string{"grant": "mail_ip", "outcome": "rate_limited"}); got != 1 {
		t.Errorf("mail_ip rate_limited = %v, want 1", got)
	}
	if !strings.Contains(logs.String(), `msg="auth: rate limit reached" limit=mail_ip`) {
		t.Errorf("no log line for the mail limit:\n%s", logs.String())
	}

	// Item 7, the review's requests.
	pgtest.CreateUser(t, db.Pool, "mallory@example.com", "password-mal")
	sub := pgtest.CreateUser(t, db.Pool, "submitter@example.com", "password-sub")
	for _, sql := range []string{
		`INSERT INTO public.labels (id, label_name, label_url) VALUES
		   (1, 'Northern Canopy', 'https://northerncanopy.bandcamp.com'), (2, 'Open', 'https://open.bandcamp.com')`,
		`INSERT INTO public.releases (id, label_id, title, release_url, release_date) VALUES
		   (74, 1, 'Hidden', 'https://northerncanopy.bandcamp.com/album/h', current_date),
		   (75, 2, 'Open', 'https://open.bandcamp.com/album/o', current_date)`,
		`INSERT INTO private.hidden_labels (label_id) VALUES (1)`,
	} {
		if _, err := db.Pool.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO public.labels_to_add (id, label_url, user_id, is_processed, is_valid, label_id)
		VALUES (1, 'https://northerncanopy.bandcamp.com', $1, true, true, 1)`, sub); err != nil {
		t.Fatal(err)
	}
	status, tk := g.grant(t, "password", `{"email":"mallory@example.com","password":"password-mal"}`)
	if status != 200 {
		t.Fatalf("sign-in: %d", status)
	}
	as := []string{"Authorization", "Bearer " + tk.AccessToken, "Prefer", "return=minimal"}
	if status, b := g.call(t, "GET", "/rest/v1/labels_to_add?select=id,label_url,is_valid,is_processed", "", as...); status != 200 ||
		strings.Contains(string(b), "northerncanopy") {
		t.Errorf("queue: %d %s", status, b)
	}
	for _, tc := range []struct{ table, hidden, missing string }{
		{"user_follow_labels", `{"label_id":1}`, `{"label_id":99999}`},
		{"user_listened_releases", `{"release_id":74}`, `{"release_id":999999}`},
	} {
		hs, hb := g.call(t, "POST", "/rest/v1/"+tc.table, tc.hidden, as...)
		ms, mb := g.call(t, "POST", "/rest/v1/"+tc.table, tc.missing, as...)
		if hs != ms || string(hb) != string(mb) || hs < 400 || hs >= 500 {
			t.Errorf("%s: hidden %d %s, missing %d %s", tc.table, hs, hb, ms, mb)
		}
	}
	if status, b := g.call(t, "POST", "/rest/v1/user_listened_releases", `{"release_id":75}`, as...); status != 201 {
		t.Errorf("a visible release: %d %s", status, b)
	}
}

// Issue #26 item 1, the review's second H1 path: an admin with a verified
// factor who signs in with a mailed code (amr otp) holds an aal1 session,
// and the admin procedures answer it as they answer a member.
func TestMagicLinkAdminSessionIsNotAdmin(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	g := startGateway(t, db.URL, map[string]string{"MAIL_DEV_INBOX": "true"}, false, nil)
	id := pgtest.CreateUser(t, db.Pool, "admin@example.com", "password-admin")
	if _, err := db.Pool.Exec(ctx, `UPDATE auth.users SET raw_app_meta_data = raw_app_meta_data || '{"role":"admin"}' WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at)
		VALUES (gen_random_uuid(), $1, 'phone', 'totp', 'verified', now(), now())`, id); err != nil {
		t.Fatal(err)
	}
	if status, b := g.call(t, "POST", "/auth/v1/otp", `{"email":"admin@example.com","create_user":false}`); status != 200 {
		t.Fatalf("otp: %d %s", status, b)
	}
	var code string
	for deadline := time.Now().Add(5 * time.Second); code == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_, b := g.call(t, "GET", "/_dev/inbox?to=admin@example.com", "", "Accept", "application/json")
		var msgs []struct{ Text string }
		if err := json.Unmarshal(b, &msgs); err == nil && len(msgs) > 0 {
			code = regexp.MustCompile(`\b\d{6}\b`).FindString(msgs[0].Text)
		}
	}
	if code == "" {
		t.Fatal("no code mailed")
	}
	status, b := g.call(t, "POST", "/auth/v1/verify", fmt.Sprintf(`{"type":"email","email":"admin@example.com","token":%q}`, code))
	var tk tokens
	if err := json.Unmarshal(b, &tk); err != nil || status != 200 || tk.AccessToken == "" {
		t.Fatalf("verify: %d %s", status, b)
	}
	if status, b := g.call(t, "POST", "/rest/v1/rpc/admin_members", `{}`, "Authorization", "Bearer "+tk.AccessToken); status != 403 {
		t.Errorf("admin_members from a magic-link session: %d %s", status, b)
	}
}
