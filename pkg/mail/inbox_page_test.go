package mail

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestInboxPageLinksAndWords(t *testing.T) {
	in := NewInbox(5)
	link := "http://127.0.0.1:8099/auth/v1/verify?token=abc&type=recovery&redirect_to=http%3A%2F%2F127.0.0.1%3A8099%2Freset-password"
	_ = in.Send(context.Background(), Message{
		To: "ada@example.com", Subject: "Reset",
		Text: "Open this link (it works once, for 1h0m0s):\n\n" + link + ".\n\n<script>alert(1)</script> javascript:alert(1)",
	})
	rec := httptest.NewRecorder()
	in.ServeHTTP(rec, httptest.NewRequest("GET", "/_dev/inbox", nil))
	body := rec.Body.String()
	escaped := strings.ReplaceAll(link, "&", "&amp;")
	for _, want := range []string{
		`<a href="` + escaped + `">` + escaped + `</a>.`, // a link, without the sentence's full stop
		"for 1 hour)",
		`name="viewport"`,
		"overflow-wrap:anywhere",
		"&lt;script&gt;",
		"just now",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "1h0m0s") || strings.Contains(body, "<script>") || strings.Contains(body, `href="javascript`) {
		t.Errorf("page shows a Go duration, raw script or a script link:\n%s", body)
	}
}

func TestHumanDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		time.Hour:                  "1 hour",
		90 * time.Minute:           "1 hour 30 minutes",
		15 * time.Minute:           "15 minutes",
		45 * time.Second:           "45 seconds",
		24 * time.Hour:             "1 day",
		26*time.Hour + time.Second: "1 day 2 hours 1 second",
		500 * time.Millisecond:     "500ms",
	} {
		if got := HumanDuration(d); got != want {
			t.Errorf("HumanDuration(%v) = %q, want %q", d, got, want)
		}
	}
	if got := humanDurations("valid for 1h0m0s, retry in 90s; not 12h30"); got != "valid for 1 hour, retry in 1 minute 30 seconds; not 12h30" {
		t.Errorf("humanDurations: %q", got)
	}
	now := time.Date(2026, 1, 2, 15, 0, 0, 0, time.UTC)
	for ts, want := range map[time.Time]string{
		now.Add(-3 * time.Second):   "just now",
		now.Add(-42 * time.Second):  "42 seconds ago",
		now.Add(-125 * time.Second): "2 minutes ago",
		now.Add(-48 * time.Hour):    "31 Dec 2025, 15:00",
	} {
		if got := ago(ts, now); got != want {
			t.Errorf("ago(%v) = %q, want %q", ts, got, want)
		}
	}
}
