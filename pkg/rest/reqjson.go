package rest

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// request.headers and request.cookies, as PostgREST documents them: JSON
// objects of the request's headers (names lower-cased, repeated headers
// joined with ", ") and cookies. They are written straight into one
// buffer each — no map, no reflection — because every request sends them.

// requestHeaders is request.headers.
func requestHeaders(h http.Header) []byte {
	size := 2
	for k, vs := range h {
		size += len(k) + 6
		for _, v := range vs {
			size += len(v) + 2
		}
	}
	b := make([]byte, 0, size+size/8)
	b = append(b, '{')
	first := true
	for k, vs := range h {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendJSONString(b, k, true)
		b = append(b, ':', '"')
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',', ' ')
			}
			b = appendJSONChars(b, v, false)
		}
		b = append(b, '"')
	}
	return append(b, '}')
}

var emptyObject = []byte("{}")

// requestCookies is request.cookies; a later cookie of the same name wins.
func requestCookies(r *http.Request) []byte {
	if r.Header.Get("Cookie") == "" {
		return emptyObject
	}
	cs := r.Cookies()
	seen := make(map[string]int, len(cs))
	order := make([]string, 0, len(cs))
	vals := make([]string, 0, len(cs))
	for _, c := range cs {
		if i, ok := seen[c.Name]; ok {
			vals[i] = c.Value
			continue
		}
		seen[c.Name] = len(order)
		order = append(order, c.Name)
		vals = append(vals, c.Value)
	}
	b := make([]byte, 0, 64)
	b = append(b, '{')
	for i, name := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name, false)
		b = append(b, ':')
		b = appendJSONString(b, vals[i], false)
	}
	return append(b, '}')
}

func appendJSONString(b []byte, s string, lower bool) []byte {
	b = append(b, '"')
	b = appendJSONChars(b, s, lower)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONChars escapes s as the inside of a JSON string. Invalid UTF-8
// becomes U+FFFD, as encoding/json does: PostgreSQL refuses invalid UTF-8
// in a text parameter, and a header must not be able to fail a request.
func appendJSONChars(b []byte, s string, lower bool) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		case lower && 'A' <= c && c <= 'Z':
			b = append(b, c+('a'-'A'))
		default:
			b = append(b, c)
		}
	}
	return b
}
