package mail

import (
	"strings"
	"testing"
	"time"
)

func TestRenderEveryKind(t *testing.T) {
	d := TemplateData{SiteURL: "https://labels.example", ConfirmationURL: "https://labels.example/auth/v1/verify?token=abc&type=magiclink",
		Token: "123456", Email: "m@example.com", NewEmail: "n@example.com", Expiry: time.Hour}
	for _, k := range []Kind{KindConfirmation, KindInvite, KindMagicLink, KindRecovery, KindEmailChange, KindReauthentication} {
		m, err := Render(k, "to@example.com", d)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if m.To != "to@example.com" || m.Subject == "" || !strings.Contains(m.Text, "1 hour") {
			t.Errorf("%s: %+v", k, m)
		}
		if k != KindReauthentication && !strings.Contains(m.Text, d.ConfirmationURL) {
			t.Errorf("%s: no link in %q", k, m.Text)
		}
		if k != KindInvite && !strings.Contains(m.Text, "code: 123456") {
			t.Errorf("%s: no code in %q", k, m.Text)
		}
		// The HTML escapes the link's & and shows it as a link.
		if k != KindReauthentication && !strings.Contains(m.HTML, `href="https://labels.example/auth/v1/verify?token=abc&amp;type=magiclink"`) {
			t.Errorf("%s: html %q", k, m.HTML)
		}
	}
	if _, err := Render("nope", "x@example.com", d); err == nil {
		t.Error("unknown kind rendered")
	}
	// Data from the request cannot inject markup into the HTML body.
	m, _ := Render(KindEmailChange, "x@example.com", TemplateData{Email: "<b>x</b>@example.com", NewEmail: "n@example.com", Token: "1", Expiry: time.Minute})
	if strings.Contains(m.HTML, "<b>x</b>") || !strings.Contains(m.Text, "1 minute") {
		t.Errorf("html %q", m.HTML)
	}
}
