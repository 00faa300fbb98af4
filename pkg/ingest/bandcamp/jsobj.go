package bandcamp

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Older Bandcamp pages (up to about mid-2020) carry their data in inline
// scripts, `var TralbumData = {…};`, rather than in data-* attributes.
// Those are JavaScript object literals, not JSON: keys are unquoted, strings
// may use single quotes, values are built with `"a" + "b"`, and lines carry
// `//` comments. jsObject turns such a literal into JSON.
//
// Written here rather than taken from a library: JSON5 readers refuse the
// `+` concatenation real pages use, and a JavaScript engine would mean
// running page content (and a large dependency) to read a dozen fields.
// Anything beyond literals (a variable, a call, arithmetic) becomes null, so
// one odd field never costs the others.

// scriptVar finds `var name = {…}` (also `let`, `const`, `window.name =`)
// in any inline script of the page and returns it as JSON.
func scriptVar(scripts []string, name string) []byte {
	re := regexp.MustCompile(`(?:\bvar|\blet|\bconst|\bwindow\.)?\s*\b` + regexp.QuoteMeta(name) + `\s*=\s*\{`)
	for _, s := range scripts {
		loc := re.FindStringIndex(s)
		if loc == nil {
			continue
		}
		if out, ok := jsObject(s[loc[1]-1:]); ok {
			return out
		}
	}
	return nil
}

// jsObject converts the object literal at the start of src to JSON. ok is
// false when src does not start with a complete object.
func jsObject(src string) (out []byte, ok bool) {
	p := &jsParser{src: src}
	p.skip()
	if p.peek() != '{' {
		return nil, false
	}
	var b bytes.Buffer
	if !p.object(&b) {
		return nil, false
	}
	return b.Bytes(), json.Valid(b.Bytes())
}

type jsParser struct {
	src string
	pos int
}

func (p *jsParser) peek() byte {
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

// skip passes whitespace and comments.
func (p *jsParser) skip() {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			p.pos++
		case strings.HasPrefix(p.src[p.pos:], "//"):
			if i := strings.IndexByte(p.src[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.src)
			}
		case strings.HasPrefix(p.src[p.pos:], "/*"):
			if i := strings.Index(p.src[p.pos+2:], "*/"); i >= 0 {
				p.pos += i + 4
			} else {
				p.pos = len(p.src)
			}
		default:
			// U+00A0 and U+FEFF are whitespace to JavaScript too.
			r, n := utf8.DecodeRuneInString(p.src[p.pos:])
			if r != '\u00a0' && r != '\ufeff' {
				return
			}
			p.pos += n
		}
	}
}

// object writes the object at p.pos as JSON.
func (p *jsParser) object(b *bytes.Buffer) bool {
	p.pos++ // {
	b.WriteByte('{')
	first := true
	for {
		p.skip()
		switch p.peek() {
		case 0:
			return false
		case '}':
			p.pos++
			b.WriteByte('}')
			return true
		case ',':
			p.pos++ // a trailing or doubled comma
			continue
		}
		key, ok := p.key()
		if !ok {
			return false
		}
		p.skip()
		if p.peek() != ':' {
			return false
		}
		p.pos++
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		if !p.value(b) {
			return false
		}
	}
}

func (p *jsParser) array(b *bytes.Buffer) bool {
	p.pos++ // [
	b.WriteByte('[')
	first := true
	for {
		p.skip()
		switch p.peek() {
		case 0:
			return false
		case ']':
			p.pos++
			b.WriteByte(']')
			return true
		case ',':
			p.pos++
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		if !p.value(b) {
			return false
		}
	}
}

// key reads an identifier, a string or a number used as a property name.
func (p *jsParser) key() (string, bool) {
	switch c := p.peek(); {
	case c == '"' || c == '\'':
		return p.str()
	case isIdentByte(c) || c >= utf8.RuneSelf:
		start := p.pos
		for p.pos < len(p.src) && (isIdentByte(p.src[p.pos]) || p.src[p.pos] >= utf8.RuneSelf) {
			p.pos++
		}
		return p.src[start:p.pos], true
	}
	return "", false
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// value writes one property value. A value that is not a literal is
// skipped up to the next `,` `}` or `]` and written as null.
func (p *jsParser) value(b *bytes.Buffer) bool {
	p.skip()
	start := p.pos
	var v bytes.Buffer
	ok := false
	switch c := p.peek(); {
	case c == '{':
		ok = p.object(&v)
	case c == '[':
		ok = p.array(&v)
	case c == '"' || c == '\'':
		ok = p.concat(&v)
	case c == '-' || c == '.' || (c >= '0' && c <= '9'):
		ok = p.number(&v)
	case isIdentByte(c):
		ok = p.word(&v)
	}
	p.skip()
	if end := p.peek(); ok && (end == ',' || end == '}' || end == ']') {
		b.Write(v.Bytes())
		return true
	}
	// Not a literal, or a literal followed by more expression. Nothing at
	// all (a stray closing bracket) is an error, not an endless null.
	p.pos = start
	if !p.skipExpr() || p.pos == start {
		return false
	}
	b.WriteString("null")
	return true
}

// concat reads "a" + 'b' + "c" as one string.
func (p *jsParser) concat(b *bytes.Buffer) bool {
	var s strings.Builder
	for {
		part, ok := p.str()
		if !ok {
			return false
		}
		s.WriteString(part)
		save := p.pos
		p.skip()
		if p.peek() != '+' {
			p.pos = save
			break
		}
		p.pos++
		p.skip()
		if c := p.peek(); c != '"' && c != '\'' {
			return false // + something that is not a literal
		}
	}
	out, _ := json.Marshal(s.String())
	b.Write(out)
	return true
}

// str reads a quoted JavaScript string and decodes its escapes.
func (p *jsParser) str() (string, bool) {
	quote := p.src[p.pos]
	p.pos++
	var s strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == quote:
			p.pos++
			return s.String(), true
		case c == '\n':
			return "", false
		case c != '\\':
			s.WriteByte(c)
			p.pos++
			continue
		}
		p.pos++ // backslash
		if p.pos >= len(p.src) {
			return "", false
		}
		e := p.src[p.pos]
		p.pos++
		switch e {
		case 'n':
			s.WriteByte('\n')
		case 't':
			s.WriteByte('\t')
		case 'r':
			s.WriteByte('\r')
		case 'b':
			s.WriteByte('\b')
		case 'f':
			s.WriteByte('\f')
		case 'v':
			s.WriteByte('\v')
		case '0':
			s.WriteByte(0)
		case '\n':
			// a line continuation
		case 'x', 'u':
			n := 2
			if e == 'u' {
				n = 4
			}
			if p.pos+n > len(p.src) {
				return "", false
			}
			v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
			if err != nil {
				return "", false
			}
			p.pos += n
			r := rune(v)
			// A surrogate pair, as JSON-minded encoders write astral characters.
			if r >= 0xd800 && r < 0xdc00 && strings.HasPrefix(p.src[p.pos:], `\u`) && p.pos+6 <= len(p.src) {
				if lo, err := strconv.ParseUint(p.src[p.pos+2:p.pos+6], 16, 32); err == nil && lo >= 0xdc00 && lo < 0xe000 {
					r = (r-0xd800)<<10 + (rune(lo) - 0xdc00) + 0x10000
					p.pos += 6
				}
			}
			s.WriteRune(r)
		default:
			s.WriteByte(e) // \" \' \\ \/ and any other character stand for themselves
		}
	}
	return "", false
}

var jsNumber = regexp.MustCompile(`^-?(?:0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)`)

func (p *jsParser) number(b *bytes.Buffer) bool {
	m := jsNumber.FindString(p.src[p.pos:])
	if m == "" {
		return false
	}
	p.pos += len(m)
	if i, err := strconv.ParseInt(m, 0, 64); err == nil {
		// Integers are written as integers: ids pass 2^53 only in theory,
		// but a float would round them.
		b.WriteString(strconv.FormatInt(i, 10))
		return true
	}
	f, err := strconv.ParseFloat(m, 64)
	if err != nil {
		return false
	}
	b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
	return true
}

// word reads true, false, null and undefined; any other identifier is an
// expression the caller skips.
func (p *jsParser) word(b *bytes.Buffer) bool {
	start := p.pos
	for p.pos < len(p.src) && isIdentByte(p.src[p.pos]) {
		p.pos++
	}
	switch p.src[start:p.pos] {
	case "true", "false", "null":
		b.WriteString(p.src[start:p.pos])
		return true
	case "undefined", "NaN", "Infinity":
		b.WriteString("null")
		return true
	}
	return false
}

// skipExpr passes an expression up to the `,` `}` or `]` that ends it,
// minding brackets, strings and comments.
func (p *jsParser) skipExpr() bool {
	depth := 0
	for {
		p.skip()
		if p.pos >= len(p.src) {
			return false
		}
		switch c := p.src[p.pos]; c {
		case '"', '\'', '`':
			if c == '`' {
				i := strings.IndexByte(p.src[p.pos+1:], '`')
				if i < 0 {
					return false
				}
				p.pos += i + 2
				continue
			}
			if _, ok := p.str(); !ok {
				return false
			}
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return true
			}
			depth--
		case ',':
			if depth == 0 {
				return true
			}
		}
		p.pos++
	}
}
