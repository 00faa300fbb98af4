package auth

import (
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"
)

// Redirects after a mailed link. A redirect_to is honoured when it points
// back at SITE_URL's site (same scheme, host and port), is an http(s)
// loopback IP literal on any port (native apps, RFC 8252), or matches a
// URI_ALLOW_LIST pattern; anything else falls back to SITE_URL, as GoTrue
// does.
//
// Patterns are matched against the parsed URL, never the raw string
// (security review H2: the string glob let "https://0x5db8d822?.allowed.example/x"
// pass "https://*.allowed.example/**", and a browser reads that host as an
// IPv4 address). A target is first read the way Go reads it, and refused
// wherever a browser (WHATWG URL) could read it differently: userinfo,
// backslashes, control characters, non-ASCII or percent signs in the host,
// a missing "//", dot segments in the path, and hosts a browser would parse
// as an IPv4 address (hex, octal, short forms) unless a pattern names that
// host literally. The scheme is compared exactly, so a custom app scheme is
// only ever allowed when the list names it. The matching is in
// redirect_match.go.

// redirectAllowed reports whether raw may receive a session or a code.
func (a *API) redirectAllowed(raw string) bool {
	bare, _, _ := strings.Cut(raw, "#")
	if !plainURLText(bare) {
		return false
	}
	for _, p := range a.allowList {
		if p.literal == bare {
			return true // listed verbatim, custom forms included
		}
	}
	t, ok := parseTarget(bare)
	if !ok {
		return false
	}
	if site, ok := parseTarget(a.cfg.SiteURL); ok && t.scheme == site.scheme && t.host == site.host &&
		(t.port == site.port || t.host == "localhost" || t.loopbackIP()) {
		return true
	}
	if (t.scheme == "http" || t.scheme == "https") && t.loopbackIP() {
		return true
	}
	for _, p := range a.allowList {
		if p.matches(t) {
			return true
		}
	}
	return false
}

// redirectTarget is raw when it is allowed, else SITE_URL; the fragment is
// dropped, since the session or the error goes there.
func (a *API) redirectTarget(raw string) string {
	if !a.redirectAllowed(raw) {
		return a.cfg.SiteURL
	}
	bare, _, _ := strings.Cut(raw, "#")
	return bare
}

// referrer is where a mailed link of this request will land: redirect_to
// (query, as supabase-js sends it, or the given body value), else the
// Referer when it is allowed, else SITE_URL — GoTrue's order.
func (a *API) referrer(c *echo.Context, body string) string {
	for _, raw := range []string{c.QueryParam("redirect_to"), body, c.Request().Referer()} {
		if a.redirectAllowed(raw) {
			return a.redirectTarget(raw)
		}
	}
	return a.cfg.SiteURL
}

// plainURLText refuses what a browser strips or rewrites before parsing
// (whitespace and control characters, backslashes, which WHATWG reads as
// "/" in http(s) URLs) and anything outside printable ASCII.
func plainURLText(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; b <= 0x20 || b >= 0x7f || b == '\\' {
			return false
		}
	}
	return true
}

// parsedURL is a redirect target or a pattern split into what is compared.
type parsedURL struct {
	scheme, host, port string // lower case; port "" for the scheme's default
	rest               string // escaped path, plus "?query" when there is one
}

// parseTarget reads raw as an absolute URL with an authority and checks
// that a browser would read it the same way.
func parseTarget(raw string) (parsedURL, bool) {
	scheme, after, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" {
		return parsedURL{}, false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil || !strings.EqualFold(u.Scheme, scheme) {
		return parsedURL{}, false
	}
	authority := after
	if i := strings.IndexAny(after, "/?#"); i >= 0 {
		authority = after[:i]
	}
	if strings.ContainsAny(authority, "@%") {
		return parsedURL{}, false
	}
	host := strings.ToLower(u.Hostname())
	if !validHost(host) {
		return parsedURL{}, false
	}
	s := strings.ToLower(u.Scheme)
	port, ok := normalPort(s, u.Port())
	if !ok || hasDotSegment(u.EscapedPath()) {
		return parsedURL{}, false
	}
	r := u.EscapedPath()
	if u.RawQuery != "" || u.ForceQuery {
		r += "?" + u.RawQuery
	}
	return parsedURL{scheme: s, host: host, port: port, rest: r}, true
}
