package mail

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	gomail "github.com/wneessen/go-mail"

	"github.com/labelbase/labelbase/pkg/config/configtest"
)

// smtpSink is a minimal SMTP server on loopback that records one
// conversation: enough of RFC 5321 for a client that finds no STARTTLS and
// no AUTH. It exists because a real mail server is not available in tests.
type smtpSink struct {
	ln   net.Listener
	done chan string // the DATA of the first message, with the envelope
	// auth makes the sink offer AUTH PLAIN LOGIN without TLS, as a local
	// relay does, and record the AUTH line.
	auth bool
}

func newSMTPSink(t *testing.T) *smtpSink { return startSMTPSink(t, false) }

func startSMTPSink(t *testing.T, auth bool) *smtpSink {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpSink{ln: ln, done: make(chan string, 1), auth: auth}
	t.Cleanup(func() { ln.Close() })
	go s.serve()
	return s
}

func (s *smtpSink) serve() {
	c, err := s.ln.Accept()
	if err != nil {
		return
	}
	defer c.Close()
	r := bufio.NewReader(c)
	w := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	w("220 sink ESMTP")
	var got strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			s.done <- got.String()
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			w("250-sink")
			if s.auth {
				w("250-AUTH PLAIN LOGIN")
			}
			w("250 8BITMIME")
		case strings.HasPrefix(cmd, "AUTH "):
			got.WriteString(strings.TrimSpace(line) + "\n")
			w("235 2.7.0 Authentication successful")
		case strings.HasPrefix(cmd, "MAIL FROM:"), strings.HasPrefix(cmd, "RCPT TO:"):
			got.WriteString(strings.TrimSpace(line) + "\n")
			w("250 OK")
		case cmd == "DATA":
			w("354 go on")
			for {
				l, err := r.ReadString('\n')
				if err != nil || l == ".\r\n" {
					break
				}
				got.WriteString(l)
			}
			w("250 queued")
		case cmd == "QUIT":
			w("221 bye")
			s.done <- got.String()
			return
		default:
			w("250 OK")
		}
	}
}

func TestSMTPSends(t *testing.T) {
	sink := newSMTPSink(t)
	port := sink.ln.Addr().(*net.TCPAddr).Port
	cfg := configtest.New(t, nil)
	cfg.SMTPHost, cfg.SMTPPort, cfg.SMTPAdminEmail = "127.0.0.1", port, "noreply@labelbase.test"
	s, err := NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "m@example.com", Subject: "Reset", Text: "link: http://x/verify?token=abc"}); err != nil {
		t.Fatal(err)
	}
	conv := <-sink.done
	// The body is quoted-printable; decode it to read the link as sent.
	head, body, _ := strings.Cut(conv, "\r\n\r\n")
	dec, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	got := head + "\n" + string(dec)
	for _, want := range []string{"MAIL FROM:<noreply@labelbase.test>", "RCPT TO:<m@example.com>", "Subject: Reset", "http://x/verify?token=abc", `From: "Labelbase" <noreply@labelbase.test>`} {
		if !strings.Contains(got, want) {
			t.Errorf("conversation lacks %q:\n%s", want, got)
		}
	}
}

func TestSMTPReportsRefusal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	cfg := configtest.New(t, nil)
	cfg.SMTPHost, cfg.SMTPPort, cfg.SMTPAdminEmail = "127.0.0.1", port, "noreply@labelbase.test"
	s, _ := NewSMTP(cfg)
	if err := s.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"}); err == nil {
		t.Fatal("sending to a closed port succeeded")
	}
	cfg.SMTPHost, cfg.SMTPAdminEmail = "h", ""
	if _, err := NewSMTP(cfg); err == nil {
		t.Fatal("no From address accepted")
	}
}

func TestInboxKeepsNewestAndServes(t *testing.T) {
	in := NewInbox(2)
	for i := range 3 {
		_ = in.Send(context.Background(), Message{To: "m" + strconv.Itoa(i) + "@example.com", Subject: "<s>", Text: "t"})
	}
	msgs := in.Messages()
	if len(msgs) != 2 || msgs[0].To != "m2@example.com" || msgs[1].To != "m1@example.com" {
		t.Fatalf("messages %+v", msgs)
	}
	rec := httptest.NewRecorder()
	in.ServeHTTP(rec, httptest.NewRequest("GET", "/_dev/inbox", nil))
	body := rec.Body.String()
	if !strings.Contains(body, "&lt;s&gt;") || strings.Contains(body, "<s>") {
		t.Errorf("page does not escape: %s", body)
	}
	rec = httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/_dev/inbox?to=M1@example.com", nil)
	r.Header.Set("Accept", "application/json")
	in.ServeHTTP(rec, r)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"to":"m1@example.com"`) || strings.Contains(rec.Body.String(), "m2@") {
		t.Errorf("json: %d %s", rec.Code, rec.Body)
	}
}

// A relay on loopback offering only PLAIN without TLS (security review,
// issue #26 item 8): a username no longer fails with go-mail's
// "autodiscover" error; the login goes through.
func TestSMTPLogsInToALoopbackRelayWithoutTLS(t *testing.T) {
	sink := startSMTPSink(t, true)
	port := sink.ln.Addr().(*net.TCPAddr).Port
	cfg := configtest.New(t, map[string]string{"SMTP_HOST": "127.0.0.1", "SMTP_PORT": strconv.Itoa(port),
		"SMTP_ADMIN_EMAIL": "noreply@labelbase.test", "SMTP_USER": "relay", "SMTP_PASS": "secret"})
	s, err := NewSMTP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	if conv := <-sink.done; !strings.Contains(conv, "AUTH PLAIN") || !strings.Contains(conv, "RCPT TO:<m@example.com>") {
		t.Fatalf("conversation:\n%s", conv)
	}
	// A remote host still never gets a password in the clear, and the
	// error says what to set.
	if isLoopback("mail.example.com") || !isLoopback("localhost") || !isLoopback("::1") {
		t.Error("isLoopback")
	}
}

// The case by name: SMTP_HOST=localhost with a username works
// against a relay that offers PLAIN without TLS (issue #26 item 8).
func TestSMTPLogsInToLocalhostByName(t *testing.T) {
	sink := startSMTPSink(t, true)
	port := sink.ln.Addr().(*net.TCPAddr).Port
	s, err := NewSMTP(configtest.New(t, map[string]string{"SMTP_HOST": "localhost", "SMTP_PORT": strconv.Itoa(port),
		"SMTP_ADMIN_EMAIL": "noreply@labelbase.test", "SMTP_USER": "relay", "SMTP_PASS": "secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	if conv := <-sink.done; !strings.Contains(conv, "AUTH PLAIN") {
		t.Fatalf("conversation:\n%s", conv)
	}
}

// A server that is not on loopback and offers only PLAIN/LOGIN without TLS
// gets no password; the error says what to set instead of go-mail's bare
// "autodiscover" one (issue #26 item 8).
func TestSMTPRemoteWithoutTLSSaysWhatToSet(t *testing.T) {
	var ip string
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			ip = n.IP.String()
			break
		}
	}
	if ip == "" {
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("listen on %s: %v", ip, err)
	}
	sink := &smtpSink{ln: ln, done: make(chan string, 1), auth: true}
	t.Cleanup(func() { ln.Close() })
	go sink.serve()
	s, err := NewSMTP(configtest.New(t, map[string]string{"SMTP_HOST": ip, "SMTP_PORT": strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
		"SMTP_ADMIN_EMAIL": "noreply@labelbase.test", "SMTP_USER": "relay", "SMTP_PASS": "secret"}))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"})
	if err == nil || !strings.Contains(err.Error(), "SMTP_PORT=465") || !strings.Contains(err.Error(), "SMTP_USER") {
		t.Fatalf("send: %v", err)
	}
	// go-mail refuses before it sends AUTH: no password left the client.
	if !errors.Is(err, gomail.ErrNoSupportedAuthDiscovered) {
		t.Errorf("not the refusal before AUTH: %v", err)
	}
}
