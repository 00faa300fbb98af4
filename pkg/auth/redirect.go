package auth

import (
	"net"
	"net/url"
	"regexp"
	"strings"

	"github.com/gobwas/glob"
	"github.com/labstack/echo/v5"
)

// Redirects after a mailed link, as GoTrue decides them: the redirect_to a
// client asks for is honoured when it points back at SITE_URL's site (same
// scheme, host and port; any port on a loopback host, for native apps per
// RFC 8252) or matches a URI_ALLOW_LIST pattern; anything else falls back
// to SITE_URL. Patterns are globs whose * stops at "." and "/" and whose **
// does not (gobwas/glob with GoTrue's separators), matched against the URL
// without its fragment. Hosts written as bare decimal numbers, IP literals
// other than loopback, and http(s) hosts with unusual characters are
// refused before the list is consulted, as GoTrue refuses them.

var (
	decimalHostRE = regexp.MustCompile(`^[0-9]+$`)
	regularHostRE = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$`)
)

// compileAllowList compiles URI_ALLOW_LIST (config has checked each).
func compileAllowList(patterns []string) []glob.Glob {
	var out []glob.Glob
	for _, p := range patterns {
		if g, err := glob.Compile(p, '.', '/'); err == nil {
			out = append(out, g)
		}
	}
	return out
}

// redirectAllowed reports whether raw may receive a session or a code.
func (a *API) redirectAllowed(raw string) bool {
	if raw == "" || strings.ContainsFunc(raw, func(r rune) bool { return r <= 0x20 || r == 0x7f }) {
		return false
	}
	site, err := url.Parse(a.cfg.SiteURL)
	if err != nil {
		return false
	}
	u, perr := url.Parse(raw)
	if perr != nil {
		// A custom app scheme url.Parse refuses (an underscore in it) may
		// still be on the list; an http(s) URL that does not parse may not.
		lower := strings.ToLower(raw)
		if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
			return false
		}
	} else {
		if u.Hostname() == site.Hostname() && u.Scheme == site.Scheme &&
			(u.Port() == site.Port() || isLoopbackHost(u.Hostname())) {
			return true
		}
		scheme := strings.ToLower(u.Scheme)
		host := u.Hostname()
		switch {
		case decimalHostRE.MatchString(host):
			return false
		case net.ParseIP(host) != nil:
			return net.ParseIP(host).IsLoopback()
		case (scheme == "http" || scheme == "https") && !regularHostRE.MatchString(host):
			return false
		}
	}
	bare, _, _ := strings.Cut(raw, "#")
	for _, g := range a.allowList {
		if g.Match(bare) {
			return true
		}
	}
	return false
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// redirectTarget is raw when it is allowed, else SITE_URL; the fragment is
// dropped, since the session or the error goes there.
func (a *API) redirectTarget(raw string) string {
	if !a.redirectAllowed(raw) {
		return a.cfg.SiteURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Fragment = ""
	return u.String()
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
