package mail

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/config/configtest"
)

// A server that refuses the greeting (EHLO and HELO) makes Send fail, and
// the connection is closed at once: go-mail on its own left it open until
// the garbage collector found it, so the server here would wait out its
// read deadline instead of reading EOF.
func TestSMTPClosesTheConnectionWhenTheHandshakeFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ended := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			ended <- err
			return
		}
		defer c.Close()
		_, _ = c.Write([]byte("220 refuses everything\r\n"))
		r := bufio.NewReader(c)
		for {
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := r.ReadString('\n'); err != nil {
				ended <- err
				return
			}
			_, _ = c.Write([]byte("554 5.7.1 go away\r\n"))
		}
	}()
	s, err := NewSMTP(configtest.New(t, map[string]string{"SMTP_HOST": "127.0.0.1",
		"SMTP_PORT": strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), "SMTP_ADMIN_EMAIL": "noreply@labelbase.test"}))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"}); err == nil {
		t.Fatal("a server refusing EHLO and HELO accepted the message")
	}
	if err := <-ended; !errors.Is(err, io.EOF) {
		t.Fatalf("the server's read ended with %v, want EOF (the client closing)", err)
	}
}

// On port 465 the connection is TLS from the first byte: the certificate is
// checked against SMTP_HOST, and a server offering only PLAIN and LOGIN
// gets the login (it is encrypted), as it did when go-mail dialled.
func TestSMTPImplicitTLS(t *testing.T) {
	const host = "mail.example.test"
	cert, roots := selfSigned(t, host)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sink := &smtpSink{ln: tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{cert}}), done: make(chan string, 1), auth: true}
	t.Cleanup(func() { sink.ln.Close() })
	newSMTP := func() *SMTP {
		s, err := NewSMTP(configtest.New(t, map[string]string{"SMTP_HOST": host, "SMTP_PORT": "465",
			"SMTP_ADMIN_EMAIL": "noreply@labelbase.test", "SMTP_USER": "relay", "SMTP_PASS": "secret"}))
		if err != nil {
			t.Fatal(err)
		}
		// host:465 is the sink.
		s.dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, raw.Addr().String())
		}
		return s
	}

	// A certificate the system does not trust: refused before any SMTP.
	// Accepted by hand; the sink serves the next connection.
	untrusted := newSMTP()
	handshook := make(chan error, 1)
	go func() {
		c, err := raw.Accept()
		if err == nil {
			err = tls.Server(c, &tls.Config{Certificates: []tls.Certificate{cert}}).Handshake()
			c.Close()
		}
		handshook <- err
	}()
	if err := untrusted.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"}); err == nil ||
		!strings.Contains(err.Error(), "certificate") {
		t.Fatalf("an untrusted certificate: %v", err)
	}
	if err := <-handshook; err == nil {
		t.Error("the server finished a handshake the client should have refused")
	}

	go sink.serve()
	s := newSMTP()
	s.tlsConfig.RootCAs = roots
	if err := s.Send(context.Background(), Message{To: "m@example.com", Subject: "x", Text: "y"}); err != nil {
		t.Fatalf("send: %v", err)
	}
	if conv := <-sink.done; !strings.Contains(conv, "AUTH PLAIN") || !strings.Contains(conv, "RCPT TO:<m@example.com>") {
		t.Fatalf("conversation:\n%s", conv)
	}
}

// selfSigned is a certificate for host and a pool that trusts it.
func selfSigned(t *testing.T, host string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(parsed)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}
