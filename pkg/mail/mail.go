// Package mail sends Labelbase's few emails (account recovery): over SMTP
// in production, or into an in-memory inbox that `labelbase dev` and the
// acceptance tests read at /_dev/inbox, so no mail server is needed there.
package mail

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/labelbase/labelbase/pkg/config"
)

// Message is one email, with a plain-text body and an optional HTML one.
type Message struct {
	To      string    `json:"to"`
	Subject string    `json:"subject"`
	Text    string    `json:"text"`
	HTML    string    `json:"html,omitempty"`
	SentAt  time.Time `json:"sent_at"`
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// New picks the sender cfg asks for: the dev inbox, SMTP, or nil when mail
// is off (no SMTP_HOST).
func New(cfg *config.Config) (Sender, *Inbox, error) {
	if cfg.MailDevInbox {
		in := NewInbox(100)
		return in, in, nil
	}
	if cfg.SMTPHost == "" {
		return nil, nil, nil
	}
	s, err := NewSMTP(cfg)
	return s, nil, err
}

// SMTP sends through a mail server with go-mail, which handles STARTTLS,
// implicit TLS and the auth mechanisms servers offer.
type SMTP struct {
	from, name string
	opts       []gomail.Option
	host       string
}

// NewSMTP checks cfg's SMTP settings. Port 465 means implicit TLS; other
// ports use STARTTLS when the server offers it. Credentials are sent only
// when SMTP_USER is set.
func NewSMTP(cfg *config.Config) (*SMTP, error) {
	if cfg.SMTPHost == "" || cfg.SMTPAdminEmail == "" {
		return nil, errors.New("mail: SMTP_HOST and SMTP_ADMIN_EMAIL are required")
	}
	opts := []gomail.Option{gomail.WithPort(cfg.SMTPPort), gomail.WithTimeout(15 * time.Second)}
	if cfg.SMTPPort == 465 {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if cfg.SMTPUser != "" {
		opts = append(opts, authOption(cfg.SMTPHost), gomail.WithUsername(cfg.SMTPUser), gomail.WithPassword(cfg.SMTPPass))
	}
	return &SMTP{from: cfg.SMTPAdminEmail, name: cfg.SMTPSenderName, opts: opts, host: cfg.SMTPHost}, nil
}

// Send delivers m on a new connection; recovery mail is rare enough that a
// pooled connection would only go stale.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.FromFormat(s.name, s.from); err != nil {
		return fmt.Errorf("mail: from: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: to: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("mail: client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		if errors.Is(err, gomail.ErrNoSupportedAuthDiscovered) {
			return fmt.Errorf("mail: %s offers no login mechanism that is safe without TLS; "+
				"enable STARTTLS on the server, use SMTP_PORT=465 (implicit TLS), or leave SMTP_USER empty "+
				"for a relay that needs no login: %w", s.host, err)
		}
		return fmt.Errorf("mail: send to %s: %w", s.host, err)
	}
	return nil
}

// authOption picks how to log in. A relay on this machine (a local
// Postfix, a Mailpit in development) often offers only PLAIN or LOGIN
// without TLS; go-mail's autodiscovery refuses those on a plain
// connection, so such a login failed with an "autodiscover" error. On a
// loopback host the password never leaves the machine, so PLAIN and LOGIN
// are allowed there without TLS, after the challenge-response mechanisms.
// Any other host keeps autodiscovery, which sends a password in the clear
// never.
func authOption(host string) gomail.Option {
	if !isLoopback(host) {
		return gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover)
	}
	return gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1,
		gomail.SMTPAuthCramMD5, gomail.SMTPAuthPlainNoEnc, gomail.SMTPAuthLoginNoEnc)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// Inbox keeps the last messages in memory instead of sending them. It is
// for development only: anyone who can reach /_dev/inbox reads the links.
type Inbox struct {
	max int
	mu  sync.Mutex
	msg []Message
}

// NewInbox keeps up to max messages, dropping the oldest.
func NewInbox(max int) *Inbox { return &Inbox{max: max} }

// Send stores m.
func (in *Inbox) Send(_ context.Context, m Message) error {
	if m.SentAt.IsZero() {
		m.SentAt = time.Now().UTC()
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.msg = append(in.msg, m)
	if len(in.msg) > in.max {
		in.msg = in.msg[len(in.msg)-in.max:]
	}
	return nil
}

// Messages returns the stored messages, newest first.
func (in *Inbox) Messages() []Message {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Message, len(in.msg))
	for i, m := range in.msg {
		out[len(in.msg)-1-i] = m
	}
	return out
}
