package main

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// devSiteURL is the SITE_URL `labelbase dev` uses when none is set: the
// address it really listens on, so recovery links and redirects reach it.
// A port of 0 is resolved first (bound and released) because SITE_URL is
// fixed before the gateway starts; the returned listen address then names
// that port, and the short gap between release and bind is acceptable for
// a local development server. A wildcard host is reached as localhost;
// a named host (localhost, a machine name) is kept as written.
func devSiteURL(listenAddr string) (site, listen string, err error) {
	host, port, err := net.SplitHostPort(listenAddr)
	if err != nil {
		return "", "", fmt.Errorf("LISTEN_ADDR %q: %w", listenAddr, err)
	}
	listen = listenAddr
	if port == "0" {
		l, err := net.Listen("tcp", listenAddr)
		if err != nil {
			return "", "", fmt.Errorf("LISTEN_ADDR %q: %w", listenAddr, err)
		}
		port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
		listen = net.JoinHostPort(host, port)
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port), listen, nil
}

// siteURLMismatch explains, for the start-up log, why SITE_URL (where
// recovery links and redirects send browsers) does not reach the address
// the gateway listens on; "" when it does or when that cannot be known.
// Only a SITE_URL naming this machine (localhost, a loopback or literal IP)
// is compared: a public name normally fronts a proxy on another port.
func siteURLMismatch(siteURL string, listen net.Addr) string {
	u, err := url.Parse(siteURL)
	tcp, ok := listen.(*net.TCPAddr)
	if err != nil || !ok || u.Hostname() == "" {
		return ""
	}
	host := u.Hostname()
	siteIP := net.ParseIP(host)
	if !strings.EqualFold(host, "localhost") && siteIP == nil {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if port != strconv.Itoa(tcp.Port) {
		return fmt.Sprintf("SITE_URL %s is not the address the gateway listens on (%s): recovery links and redirects will not reach it; set SITE_URL to the URL browsers use", siteURL, listenURL(listen))
	}
	wildcard := tcp.IP == nil || tcp.IP.IsUnspecified()
	local := strings.EqualFold(host, "localhost") || siteIP.IsLoopback()
	switch {
	case wildcard:
		return ""
	case local && tcp.IP.IsLoopback():
		return ""
	case siteIP != nil && siteIP.Equal(tcp.IP):
		return ""
	}
	return fmt.Sprintf("SITE_URL %s is not the address the gateway listens on (%s): recovery links and redirects will not reach it; set SITE_URL to the URL browsers use", siteURL, listenURL(listen))
}
