package bandcamp

import (
	"strings"

	"golang.org/x/net/html"
)

// The helpers below are the few tree queries the parsers need; a selector
// library would be a dependency for a dozen lines.

type match func(*html.Node) bool

// find returns the first element under n, in document order, that m accepts.
func find(n *html.Node, m match) *html.Node {
	if n == nil {
		return nil
	}
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && m(c) {
			return c
		}
	}
	return nil
}

// findAll returns every element under n that m accepts.
func findAll(n *html.Node, m match) []*html.Node {
	var out []*html.Node
	if n == nil {
		return nil
	}
	for c := range n.Descendants() {
		if c.Type == html.ElementNode && m(c) {
			out = append(out, c)
		}
	}
	return out
}

func attr(n *html.Node, key string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func tag(name string) match { return func(n *html.Node) bool { return n.Data == name } }

func id(v string) match { return func(n *html.Node) bool { return attr(n, "id") == v } }

func class(c string) match { return func(n *html.Node) bool { return hasClass(n, c) } }

func withAttr(key string) match { return func(n *html.Node) bool { return hasAttr(n, key) } }

func all(ms ...match) match {
	return func(n *html.Node) bool {
		for _, m := range ms {
			if !m(n) {
				return false
			}
		}
		return true
	}
}

// text is n's visible text with whitespace collapsed, leaving out the
// subtrees skip accepts.
func text(n *html.Node, skip match) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
		case n.Type == html.ElementNode && skip != nil && skip(n):
		case n.Type == html.ElementNode && n.Data == "br":
			b.WriteByte(' ')
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
	}
	walk(n)
	return clean(b.String())
}

// clean collapses whitespace and drops the zero-width characters that
// Bandcamp titles sometimes carry.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch r {
		case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// meta returns the content of <meta property=key> or <meta name=key>.
func meta(root *html.Node, key string) string {
	n := find(root, func(n *html.Node) bool {
		return n.Data == "meta" && (attr(n, "property") == key || attr(n, "name") == key)
	})
	return attr(n, "content")
}
