package mail

import (
	"bytes"
	"fmt"
	htmltemplate "html/template"
	"text/template"
	"time"
)

// The mails of GoTrue's email flows. Each has a plain-text and an HTML body
// from the same data, whose field names are GoTrue's template variables
// ({{ .ConfirmationURL }}, {{ .Token }}, {{ .TokenHash }}, ...), so an
// operator who knows Supabase's templates reads these the same way.

// Kind names a mail.
type Kind string

// The mails the auth API sends.
const (
	KindConfirmation     Kind = "confirmation"
	KindInvite           Kind = "invite"
	KindMagicLink        Kind = "magic_link"
	KindRecovery         Kind = "recovery"
	KindEmailChange      Kind = "email_change"
	KindReauthentication Kind = "reauthentication"
)

// TemplateData is what a template may show.
type TemplateData struct {
	SiteURL string
	// ConfirmationURL is the link to GET /verify; empty for the
	// reauthentication code, which has no link.
	ConfirmationURL string
	// Token is the six-digit code, TokenHash the token the link carries.
	Token     string
	TokenHash string
	Email     string
	// NewEmail is the address an email change moves to.
	NewEmail   string
	RedirectTo string
	// Expiry is how long the link and code work.
	Expiry time.Duration
}

// ExpiryWords is Expiry as a person says it ("1 hour", "10 minutes").
func (d TemplateData) ExpiryWords() string {
	switch m := int(d.Expiry.Minutes()); {
	case m >= 60 && m%60 == 0 && m/60 == 1:
		return "1 hour"
	case m >= 60 && m%60 == 0:
		return fmt.Sprintf("%d hours", m/60)
	case m == 1:
		return "1 minute"
	default:
		return fmt.Sprintf("%d minutes", m)
	}
}

type template2 struct {
	subject string
	text    string
}

// templates hold the wording; the HTML body wraps the same paragraphs.
var templates = map[Kind]template2{
	KindConfirmation: {
		subject: "Confirm your Labelbase account",
		text: `Welcome to Labelbase.

To confirm {{ .Email }}, open this link:

{{ .ConfirmationURL }}

or enter this code: {{ .Token }}

The link and the code work once, for {{ .ExpiryWords }}. If you did not sign up, ignore this mail.
`,
	},
	KindInvite: {
		subject: "You have been invited to Labelbase",
		text: `You have been invited to Labelbase as {{ .Email }}.

To accept, open this link and choose a password:

{{ .ConfirmationURL }}

The link works once, for {{ .ExpiryWords }}.
`,
	},
	KindMagicLink: {
		subject: "Your Labelbase sign-in link",
		text: `To sign in to Labelbase as {{ .Email }}, open this link:

{{ .ConfirmationURL }}

or enter this code: {{ .Token }}

The link and the code work once, for {{ .ExpiryWords }}. If it was not you, ignore this mail.
`,
	},
	KindRecovery: {
		subject: "Reset your Labelbase password",
		text: `Someone asked to reset the password of your Labelbase account.

To choose a new password, open this link (it works once, for {{ .ExpiryWords }}):

{{ .ConfirmationURL }}

or enter this code: {{ .Token }}

If it was not you, ignore this mail; your password stays as it is.
`,
	},
	KindEmailChange: {
		subject: "Confirm your new Labelbase email",
		text: `Someone asked to change the email of a Labelbase account from {{ .Email }} to {{ .NewEmail }}.

To confirm, open this link:

{{ .ConfirmationURL }}

or enter this code: {{ .Token }}

The link and the code work once, for {{ .ExpiryWords }}. If it was not you, ignore this mail; nothing changes without this confirmation.
`,
	},
	KindReauthentication: {
		subject: "Your Labelbase confirmation code",
		text: `To confirm it is you, enter this code: {{ .Token }}

It works once, for {{ .ExpiryWords }}. If you did not ask for it, change your password.
`,
	},
}

var htmlPage = htmltemplate.Must(htmltemplate.New("page").Parse(
	`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
		`{{ range .Paragraphs }}<p>{{ . }}</p>{{ end }}` +
		`{{ if .URL }}<p><a href="{{ .URL }}">{{ .Action }}</a></p>{{ end }}` +
		`{{ if .Token }}<p style="font-size:1.5em;letter-spacing:.2em"><strong>{{ .Token }}</strong></p>{{ end }}` +
		`</body></html>`))

var parsed = func() map[Kind]*template.Template {
	m := map[Kind]*template.Template{}
	for k, t := range templates {
		m[k] = template.Must(template.New(string(k)).Parse(t.text))
	}
	return m
}()

var actions = map[Kind]string{
	KindConfirmation: "Confirm your email", KindInvite: "Accept the invite", KindMagicLink: "Sign in",
	KindRecovery: "Choose a new password", KindEmailChange: "Confirm the change",
}

// Render builds the mail of kind for to.
func Render(kind Kind, to string, d TemplateData) (Message, error) {
	t, ok := parsed[kind]
	if !ok {
		return Message{}, fmt.Errorf("mail: no template %q", kind)
	}
	var text bytes.Buffer
	if err := t.Execute(&text, d); err != nil {
		return Message{}, fmt.Errorf("mail: template %q: %w", kind, err)
	}
	var html bytes.Buffer
	err := htmlPage.Execute(&html, map[string]any{
		"Paragraphs": paragraphs(text.String(), d.ConfirmationURL, d.Token),
		"URL":        d.ConfirmationURL,
		"Action":     actions[kind],
		"Token":      d.Token,
	})
	if err != nil {
		return Message{}, fmt.Errorf("mail: html %q: %w", kind, err)
	}
	return Message{To: to, Subject: templates[kind].subject, Text: text.String(), HTML: html.String()}, nil
}

// paragraphs are the text body's paragraphs without the bare link and the
// code line, which the HTML shows as a button and a large code.
func paragraphs(text, link, token string) []string {
	var out []string
	for _, p := range bytes.Split([]byte(text), []byte("\n\n")) {
		s := string(bytes.TrimSpace(p))
		if s == "" || s == link || (token != "" && bytes.Contains(p, []byte(token))) {
			continue
		}
		out = append(out, s)
	}
	return out
}
