package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
)

// Unreachable reports whether err from Get means the site could not be
// reached at all: a DNS failure, a refused or unroutable connection, a
// connection cut mid-response, or a failed TLS handshake. Such errors say
// nothing about the page and everything about the network, so the crawler
// stops a pass after a few of them instead of trying every label.
//
// ErrDisallowed is never a network failure, although the dialer reports
// the address guard's refusal as a *net.OpError.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, ErrDisallowed) {
		return false
	}
	var (
		op      *net.OpError
		dns     *net.DNSError
		header  tls.RecordHeaderError
		alert   tls.AlertError
		verify  *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	return errors.As(err, &op) || errors.As(err, &dns) || errors.As(err, &header) || errors.As(err, &alert) ||
		errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &host) || errors.As(err, &invalid)
}
