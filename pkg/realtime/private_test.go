package realtime

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// policies as Supabase's docs write them: members of a room may read;
// only the room's writer may send.
const roomPolicies = `
CREATE POLICY "members read" ON realtime.messages FOR SELECT TO authenticated
  USING (realtime.topic() LIKE 'room-%' AND (auth.jwt() ->> 'member') = 'yes');
CREATE POLICY "writer sends" ON realtime.messages FOR INSERT TO authenticated
  WITH CHECK (realtime.topic() LIKE 'room-%' AND (auth.jwt() ->> 'writer') = 'yes');`

func memberToken(t *testing.T, member, writer bool, exp time.Duration) string {
	t.Helper()
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return signClaims(t, map[string]any{"sub": "u-" + yes(member) + yes(writer), "role": "authenticated", "member": yes(member),
		"writer": yes(writer), "exp": time.Now().Add(exp).Unix()})
}

func TestPrivateChannels(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	c := dial(t, g, VSN2)
	private := func(tok string) map[string]any {
		return map[string]any{"access_token": tok, "config": map[string]any{"private": true, "broadcast": map[string]any{"ack": true, "self": true}}}
	}
	reader := memberToken(t, true, false, time.Hour)
	if got := c.joinErr("realtime:room-1", private(reader)); got != "Unauthorized: You do not have permissions to read from this Channel topic: room-1" {
		t.Fatalf("without policies: %q", got)
	}
	if _, err := db.Pool.Exec(context.Background(), roomPolicies); err != nil {
		t.Fatal(err)
	}
	// The refusal is cached per (topic, token): the same token is refused
	// without asking again; a new token asks again.
	if got := c.joinErr("realtime:room-1", private(reader)); !strings.HasPrefix(got, "Unauthorized:") {
		t.Fatalf("the same token after the policies changed (cached refusal): %q", got)
	}
	reader = memberToken(t, true, false, 2*time.Hour)
	if got := c.joinErr("realtime:room-1", private(memberToken(t, false, false, time.Hour))); !strings.HasPrefix(got, "Unauthorized:") {
		t.Fatalf("non-member: %q", got)
	}
	if got := c.joinErr("realtime:other", private(reader)); !strings.HasPrefix(got, "Unauthorized:") {
		t.Fatalf("topic outside the policy: %q", got)
	}
	jr, _ := c.join("realtime:room-1", private(reader))
	ref := c.push(jr, "realtime:room-1", "broadcast", map[string]any{"type": "broadcast", "event": "hi", "payload": map[string]any{}})
	if st, r := c.reply(ref); st != "error" || !strings.Contains(string(r), "permissions to write") {
		t.Fatalf("reader sending: %s %s", st, r)
	}
	// A public channel of the same name is another channel.
	pub := dial(t, g, VSN2)
	pub.join("realtime:room-1", cfg(nil, nil))

	w := dial(t, g, VSN1)
	wjr, _ := w.join("realtime:room-1", private(memberToken(t, true, true, time.Hour)))
	ref = w.push(wjr, "realtime:room-1", "broadcast", map[string]any{"type": "broadcast", "event": "hi", "payload": map[string]any{"n": 1}})
	if st, r := w.reply(ref); st != "ok" {
		t.Fatalf("writer sending: %s %s", st, r)
	}
	c.expect("reader receives", 5*time.Second, isBroadcast("hi"))
	pub.quiet("public twin receives nothing", 300*time.Millisecond, isBroadcast("hi"))

	// access_token that may no longer read ends the channel.
	c.push(jr, "realtime:room-1", "access_token", map[string]any{"access_token": memberToken(t, false, false, time.Hour)})
	expectClose(t, c, "realtime:room-1", jr, "You no longer have permission to read from this Channel topic: room-1")

	// HTTP: a private send needs the INSERT policy.
	if st, body := httpBroadcast(t, g, "room-1", "h", "?private=true", memberToken(t, true, false, time.Hour), "application/json", `{"a":1}`); st != 403 {
		t.Fatalf("HTTP private send as reader: %d %s", st, body)
	}
	if st, body := httpBroadcast(t, g, "room-1", "h", "?private=true", memberToken(t, true, true, time.Hour), "application/json", `{"a":1}`); st != 202 {
		t.Fatalf("HTTP private send as writer: %d %s", st, body)
	}
	w.expect("writer gets the HTTP send", 5*time.Second, isBroadcast("h"))

	// Decisions are cached per (topic, token) until the token changes, so
	// joins do not probe the database each time: with the read policy
	// gone, the decided token still joins room-1, while the same token on
	// another room and a new token are asked afresh and refused.
	if _, err := db.Pool.Exec(context.Background(), `DROP POLICY "members read" ON realtime.messages`); err != nil {
		t.Fatal(err)
	}
	again := dial(t, g, VSN2)
	again.join("realtime:room-1", private(reader))
	if got := again.joinErr("realtime:room-2", private(reader)); !strings.HasPrefix(got, "Unauthorized:") {
		t.Fatalf("same token, another topic, no policy: %q", got)
	}
	if got := again.joinErr("realtime:room-1", private(memberToken(t, true, false, 3*time.Hour))); !strings.HasPrefix(got, "Unauthorized:") {
		t.Fatalf("a new token, no policy: %q", got)
	}
}

func httpBroadcast(t *testing.T, g *gw, topic, event, query, bearer, ctype, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", g.srv.URL+"/realtime/v1/api/broadcast/"+topic+"/events/"+event+query, strings.NewReader(body))
	req.Header.Set("apikey", g.cfg.AnonKey)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
