package auth

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"

	"github.com/gobwas/glob"
)

// redirectPattern is one URI_ALLOW_LIST entry. A pattern with an authority
// ("scheme://host[:port]/path") is matched part by part: the scheme
// exactly, the host label by label (a "*" stands for letters, digits and
// hyphens within one label, "**" for any number of labels), the port
// exactly (":*" for any), and the path and query as a glob whose "*" stops
// at "/" and whose "**" does not. Any entry also matches itself verbatim
// when it has no "*", which is how a custom form Go cannot parse is listed.
type redirectPattern struct {
	literal string
	parsed  bool
	scheme  string
	host    *regexp.Regexp
	// hostLiteral is the host when it has no wildcard: only such a host
	// may be an IP address.
	hostLiteral string
	port        string
	anyPort     bool
	rest        glob.Glob // nil: the pattern has no path
}

var (
	hostLabelRE   = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
	hostPatternRE = regexp.MustCompile(`^[a-z0-9.*-]+$`)
	hexNumberRE   = regexp.MustCompile(`^0x[0-9a-f]*$`)
	digitsRE      = regexp.MustCompile(`^[0-9]+$`)
)

// compileAllowList compiles URI_ALLOW_LIST. Entries it cannot split into
// parts still match themselves verbatim; their text is returned so that
// start-up can say so.
func compileAllowList(patterns []string) ([]redirectPattern, []string) {
	var out []redirectPattern
	var literalOnly []string
	for _, raw := range patterns {
		bare, _, _ := strings.Cut(raw, "#")
		p := redirectPattern{}
		if !strings.Contains(bare, "*") {
			p.literal = bare
		}
		if compilePattern(bare, &p) {
			p.parsed = true
		} else {
			literalOnly = append(literalOnly, raw)
		}
		out = append(out, p)
	}
	return out, literalOnly
}

func compilePattern(s string, p *redirectPattern) bool {
	scheme, after, ok := strings.Cut(s, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "*?[]{}") {
		return false
	}
	p.scheme = strings.ToLower(scheme)
	authority, rest := after, ""
	if i := strings.IndexAny(after, "/?"); i >= 0 {
		authority, rest = after[:i], after[i:]
	}
	host := strings.ToLower(authority)
	if h, port, ok := strings.Cut(authority, ":"); ok && !strings.HasPrefix(authority, "[") {
		host = strings.ToLower(h)
		switch {
		case port == "*":
			p.anyPort = true
		default:
			n, ok := normalPort(p.scheme, port)
			if !ok {
				return false
			}
			p.port = n
		}
	}
	if strings.HasPrefix(host, "[") {
		if !strings.HasSuffix(host, "]") || strings.Contains(host, "*") {
			return false
		}
		host = host[1 : len(host)-1]
	} else if !hostPatternRE.MatchString(host) {
		return false
	}
	if !strings.Contains(host, "*") {
		p.hostLiteral = host
	} else {
		expr := regexp.QuoteMeta(host)
		expr = strings.ReplaceAll(expr, `\*\*`, `[a-z0-9.-]*`)
		expr = strings.ReplaceAll(expr, `\*`, `[a-z0-9-]*`)
		p.host = regexp.MustCompile("^" + expr + "$")
	}
	if rest != "" {
		g, err := glob.Compile(rest, '/')
		if err != nil {
			return false
		}
		p.rest = g
	}
	return true
}

// matches reports whether the parsed target t fits the pattern.
func (p redirectPattern) matches(t parsedURL) bool {
	if !p.parsed || t.scheme != p.scheme {
		return false
	}
	if !p.anyPort && t.port != p.port {
		return false
	}
	switch {
	case p.hostLiteral != "":
		if t.host != p.hostLiteral {
			return false
		}
	case isIPHost(t.host) || !p.host.MatchString(t.host):
		return false
	}
	if p.rest == nil {
		return t.rest == "" || t.rest == "/"
	}
	return p.rest.Match(t.rest)
}

// validHost accepts a lower-case DNS name of letters, digits and hyphens,
// a canonical dotted-quad IPv4 address or a canonical IPv6 address. It
// refuses every name a browser would turn into a different IPv4 address
// (WHATWG URL: a last label that is a number, hex "0x…" included, makes
// the whole host an IPv4 address in decimal, octal or hex parts).
func validHost(h string) bool {
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		return err == nil && a.Is6() && a.Zone() == "" && a.String() == h
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if !hostLabelRE.MatchString(l) {
			return false
		}
	}
	last := labels[len(labels)-1]
	if digitsRE.MatchString(last) || hexNumberRE.MatchString(last) {
		a, err := netip.ParseAddr(h)
		return err == nil && a.Is4() && a.String() == h
	}
	return true
}

// isIPHost reports whether a valid host is an IP address.
func isIPHost(h string) bool {
	_, err := netip.ParseAddr(h)
	return err == nil
}

// loopbackIP reports whether the target's host is a loopback IP literal.
func (t parsedURL) loopbackIP() bool {
	a, err := netip.ParseAddr(t.host)
	return err == nil && a.IsLoopback()
}

// normalPort is the port as a browser keeps it: leading zeros dropped and
// the scheme's default port left out.
func normalPort(scheme, p string) (string, bool) {
	if p == "" {
		return "", true
	}
	if !digitsRE.MatchString(p) {
		return "", false
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", false
	}
	if (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return "", true
	}
	return strconv.Itoa(n), true
}

// hasDotSegment reports a "." or ".." path segment, written plainly or
// percent-encoded, which a browser resolves away before it asks.
func hasDotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		seg = strings.ReplaceAll(strings.ToLower(seg), "%2e", ".")
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
