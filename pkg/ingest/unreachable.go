package ingest

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
)

// unreachableErr reports whether a request failed before Bandcamp could
// answer: the name did not resolve, the connection was refused or had no
// route, timed out while connecting, or TLS failed. Several in a row mean
// this machine cannot reach Bandcamp now, so retrying label after label
// is futile (and at 50,000 labels, takes days).
func unreachableErr(err error) bool {
	var dns *net.DNSError
	var op *net.OpError
	var cert *tls.CertificateVerificationError
	var rec tls.RecordHeaderError
	var unknownCA x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	return errors.As(err, &dns) || errors.As(err, &op) || errors.As(err, &cert) || errors.As(err, &rec) ||
		errors.As(err, &unknownCA) || errors.As(err, &host) || errors.As(err, &invalid)
}
