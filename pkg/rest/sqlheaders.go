package rest

import (
	"net/http"
	"strings"
)

// SQL may add response headers through response.headers or RAISE SQLSTATE
// 'PGRST', as with PostgREST (Set-Cookie, Location, Cache-Control, …
// included). What it may not touch is what the gateway owns: the message
// framing and connection (hop-by-hop headers, Content-Length), the CORS
// policy, and the request id. Malformed names or values are refused so a
// function can never smuggle a header line.
var sqlForbiddenHeaders = map[string]bool{
	"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Transfer-Encoding": true,
	"Te": true, "Trailer": true, "Upgrade": true, "Content-Length": true, "Content-Encoding": true,
	"Host": true, "Date": true, "X-Request-Id": true, "Vary": true,
}

// sqlHeaderAllowed says whether SQL may set header name to value.
func sqlHeaderAllowed(name, value string) bool {
	if !validHeaderName(name) || !validHeaderValue(value) {
		return false
	}
	c := http.CanonicalHeaderKey(name)
	if sqlForbiddenHeaders[c] || strings.HasPrefix(c, "Proxy-") || strings.HasPrefix(c, "Access-Control-") {
		return false
	}
	return true
}

// validHeaderName is RFC 9110's token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue refuses control characters other than horizontal tab.
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
