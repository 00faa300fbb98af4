package fetch

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// blocked are ranges that IsGlobalUnicast and IsPrivate let through but a
// crawler must not reach: shared, benchmark, documentation and reserved
// space, and IPv6 prefixes that embed an IPv4 address (NAT64, 6to4).
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// publicAddr reports whether ip is an ordinary internet address.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsGlobalUnicast() || ip.IsPrivate() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// guard is the dialer's Control hook: it sees the resolved address of
// every connection, so a hostile DNS answer cannot point a request at
// the loopback, the local network or a cloud metadata service.
func guard(network, address string, _ syscall.RawConn) error {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrDisallowed, address)
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !publicAddr(ip) {
		return fmt.Errorf("%w: %s is not a public address", ErrDisallowed, host)
	}
	if port != "443" && port != "80" {
		return fmt.Errorf("%w: port %s", ErrDisallowed, port)
	}
	return nil
}
