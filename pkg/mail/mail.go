// Package mail sends Labelbase's few emails (account recovery): over SMTP
// in production, or into an in-memory inbox that `labelbase dev` and the
// acceptance tests read at /_dev/inbox, so no mail server is needed there.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
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

// SMTP sends through a mail server with go-mail, which handles STARTTLS
// and the auth mechanisms servers offer. SMTP dials the connection itself
// (see Send) and, on port 465, makes the TLS connection too.
type SMTP struct {
	from, name string
	opts       []gomail.Option
	host       string
	// implicitTLS is port 465: TLS from the first byte, with tlsConfig.
	implicitTLS bool
	tlsConfig   *tls.Config
	// dial opens the TCP connection (a net.Dialer's; tests redirect it).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// NewSMTP checks cfg's SMTP settings. Port 465 means implicit TLS; other
// ports use STARTTLS when the server offers it. Credentials are sent only
// when SMTP_USER is set.
func NewSMTP(cfg *config.Config) (*SMTP, error) {
	if cfg.SMTPHost == "" || cfg.SMTPAdminEmail == "" {
		return nil, errors.New("mail: SMTP_HOST and SMTP_ADMIN_EMAIL are required")
	}
	s := &SMTP{from: cfg.SMTPAdminEmail, name: cfg.SMTPSenderName, host: cfg.SMTPHost, implicitTLS: cfg.SMTPPort == 465,
		tlsConfig: &tls.Config{ServerName: cfg.SMTPHost, MinVersion: tls.VersionTLS12}, dial: (&net.Dialer{}).DialContext}
	s.opts = []gomail.Option{gomail.WithPort(cfg.SMTPPort), gomail.WithTimeout(15 * time.Second)}
	if s.implicitTLS {
		s.opts = append(s.opts, gomail.WithSSL())
	} else {
		s.opts = append(s.opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if cfg.SMTPUser != "" {
		s.opts = append(s.opts, authOption(cfg.SMTPHost, s.implicitTLS), gomail.WithUsername(cfg.SMTPUser), gomail.WithPassword(cfg.SMTPPass))
	}
	return s, nil
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
	// go-mail closes the connection with QUIT after a send, but when the
	// greeting, STARTTLS or the login fails it returns the error and drops
	// the connection it dialled, which then stayed open until the garbage
	// collector found it. So the connection is dialled here, kept, and
	// closed after every Send (again, harmlessly, after a QUIT).
	var conn net.Conn
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := s.connect(ctx, network, addr)
		if err == nil {
			conn = c
		}
		return c, err
	}
	c, err := gomail.NewClient(s.host, append(s.opts[:len(s.opts):len(s.opts)], gomail.WithDialContextFunc(dial))...)
	if err != nil {
		return fmt.Errorf("mail: client: %w", err)
	}
	err = c.DialAndSendWithContext(ctx, msg)
	if conn != nil {
		_ = conn.Close()
	}
	if err != nil {
		if errors.Is(err, gomail.ErrNoSupportedAuthDiscovered) {
			return fmt.Errorf("mail: %s offers no login mechanism that is safe without TLS; "+
				"enable STARTTLS on the server, use SMTP_PORT=465 (implicit TLS), or leave SMTP_USER empty "+
				"for a relay that needs no login: %w", s.host, err)
		}
		return fmt.Errorf("mail: send to %s: %w", s.host, err)
	}
	return nil
}

// connect opens the connection go-mail talks SMTP over. With a dial
// function of its own go-mail no longer makes the TLS connection for port
// 465, so it is made here, with the certificate checked against SMTP_HOST
// as go-mail did (its WithSSL, still set, now only keeps it from trying
// STARTTLS inside the TLS connection).
func (s *SMTP) connect(ctx context.Context, network, addr string) (net.Conn, error) {
	raw, err := s.dial(ctx, network, addr)
	if err != nil || !s.implicitTLS {
		return raw, err
	}
	tc := tls.Client(raw, s.tlsConfig)
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, err
	}
	return tc, nil
}

// authOption picks how to log in. A relay on this machine (a local
// Postfix, a Mailpit in development) often offers only PLAIN or LOGIN
// without TLS; go-mail's autodiscovery refuses those on a plain
// connection, so such a login failed with an "autodiscover" error. On a
// loopback host the password never leaves the machine, so PLAIN and LOGIN
// are allowed there without TLS, after the challenge-response mechanisms.
// Any other host keeps autodiscovery, which sends a password in the clear
// never. On port 465 the connection is TLS (made by connect, which go-mail
// cannot tell apart from a plain one, so its autodiscovery would refuse
// PLAIN and LOGIN there): the mechanisms are autodiscovery's own list for
// an encrypted connection, whose PLAIN and LOGIN still check for TLS.
func authOption(host string, implicitTLS bool) gomail.Option {
	if implicitTLS {
		return gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthSCRAMSHA256PLUS, gomail.SMTPAuthSCRAMSHA256,
			gomail.SMTPAuthSCRAMSHA1PLUS, gomail.SMTPAuthSCRAMSHA1, gomail.SMTPAuthNTLM, gomail.SMTPAuthCramMD5,
			gomail.SMTPAuthPlain, gomail.SMTPAuthLogin)
	}
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
