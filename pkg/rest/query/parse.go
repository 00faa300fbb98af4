package query

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// Reserved query parameters; every other key is a filter (or an RPC
// argument).
var reserved = map[string]bool{"select": true, "order": true, "limit": true, "offset": true,
	"columns": true, "on_conflict": true, "or": true, "and": true, "not.or": true, "not.and": true}

// Pair is one decoded key=value of the query string, in order.
type Pair struct{ Key, Value string }

// SplitQuery decodes a raw query string keeping the order of its pairs,
// with form decoding (+ is a space) as URLSearchParams encodes.
func SplitQuery(raw string) ([]Pair, error) {
	var out []Pair
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, parseError("query string", k, 0, "invalid percent-encoding")
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, parseError("query string", v, 0, "invalid percent-encoding")
		}
		out = append(out, Pair{key, val})
	}
	return out, nil
}

// Parse builds the request tree from the query string's pairs. isArg, when
// not nil, claims pairs that are RPC arguments.
func Parse(pairs []Pair, isArg func(key, value string) bool) (*Request, error) {
	r := &Request{Nodes: map[string]*Node{}}
	r.Root()
	for _, p := range pairs {
		k, v := p.Key, p.Value
		var err error
		switch {
		case k == "apikey":
			// The gateway's apikey may ride in the query string.
		case isArg != nil && !reserved[k] && isArg(k, v):
			r.addArg(k, v)
		case k == "select":
			r.Select, err = ParseSelect(v)
		case k == "columns":
			r.Columns, err = parseColumns(v)
		case k == "on_conflict":
			r.OnConflict, err = parseColumns(v)
		default:
			err = r.addNodeParam(k, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// addArg records an RPC argument, keeping the order of first mention.
func (r *Request) addArg(k, v string) {
	if r.Args == nil {
		r.Args = map[string]string{}
	}
	if _, dup := r.Args[k]; !dup {
		r.ArgOrder = append(r.ArgOrder, k)
	}
	r.Args[k] = v
}

// addNodeParam applies a [path.]order, limit, offset, or, and or filter
// parameter to the node it names.
func (r *Request) addNodeParam(k, v string) error {
	path, last := splitKey(k)
	switch last {
	case "order":
		terms, err := ParseOrder(v)
		if err == nil {
			r.node(path).Order = terms
		}
		return err
	case "limit", "offset":
		return r.addPage(path, last, v)
	case "or", "and":
		neg := false
		if len(path) > 0 && path[len(path)-1] == "not" {
			neg = true
			path = path[:len(path)-1]
		}
		l, err := ParseLogic(last, v)
		if err != nil {
			return err
		}
		l.Negate = neg
		n := r.node(path)
		n.Conds = append(n.Conds, Cond{Logic: l})
		return nil
	}
	f, err := parseFieldString(last)
	if err != nil {
		return err
	}
	flt, err := ParseFilter(f, v)
	if err != nil {
		return err
	}
	n := r.node(path)
	n.Conds = append(n.Conds, Cond{Filter: flt})
	return nil
}

// addPage sets a node's limit or offset, both non-negative integers.
func (r *Request) addPage(path []string, which, v string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	switch {
	case err != nil:
		return parseError(which, v, 0, "expecting an integer")
	case which == "limit" && n < 0:
		return rangeError("Limit should be greater than or equal to zero.")
	case n < 0:
		return parseError("offset", v, 0, "expecting a non-negative integer")
	case which == "limit":
		r.node(path).Limit = &n
	default:
		r.node(path).Offset = &n
	}
	return nil
}

// splitKey splits "a.b.col" into the embed path [a b] and "col". Dots in
// a JSON path (after an arrow) belong to the last segment.
func splitKey(k string) ([]string, string) {
	arrow := strings.Index(k, "->")
	head, tail := k, ""
	if arrow >= 0 {
		head, tail = k[:arrow], k[arrow:]
	}
	parts := strings.Split(head, ".")
	last := parts[len(parts)-1] + tail
	path := parts[:len(parts)-1]
	// "not.or" / "not.and": keep "not" in path for the caller to strip.
	return path, last
}

func parseColumns(v string) ([]string, error) {
	var out []string
	for _, part := range splitTop(v, ',') {
		part = strings.TrimSpace(part)
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			part = strings.ReplaceAll(part[1:len(part)-1], `""`, `"`)
		}
		if part == "" {
			return nil, parseError("columns", v, 0, "empty column name")
		}
		out = append(out, part)
	}
	return out, nil
}

// splitTop splits s at sep outside double quotes and parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	inQ := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQ:
			if c == '\\' && i+1 < len(s) {
				i++
			} else if c == '"' && (i+1 == len(s) || s[i+1] == sep || s[i+1] == ')') {
				inQ = false
			}
		case c == '"':
			inQ = true
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
		case c == sep && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// scanner is a tiny cursor over one parameter value, for error positions.
type scanner struct {
	s    string
	pos  int
	what string
}

func (sc *scanner) fail(expecting string) *apierr.Error {
	return parseError(sc.what, sc.s, sc.pos, unexpected(sc.s, sc.pos, expecting))
}

func (sc *scanner) eof() bool { return sc.pos >= len(sc.s) }

func (sc *scanner) peek() byte {
	if sc.eof() {
		return 0
	}
	return sc.s[sc.pos]
}

func (sc *scanner) has(p string) bool { return strings.HasPrefix(sc.s[sc.pos:], p) }

func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || r == ' ' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// ident reads a bare or double-quoted identifier. Bare identifiers may
// contain spaces (PostgREST allows them; supabase-js strips whitespace).
func (sc *scanner) ident() (string, bool) {
	if sc.peek() == '"' {
		var b strings.Builder
		i := sc.pos + 1
		for i < len(sc.s) {
			c := sc.s[i]
			if c == '"' {
				if i+1 < len(sc.s) && sc.s[i+1] == '"' {
					b.WriteByte('"')
					i += 2
					continue
				}
				if b.Len() == 0 {
					return "", false
				}
				sc.pos = i + 1
				return b.String(), true
			}
			b.WriteByte(c)
			i++
		}
		return "", false
	}
	start := sc.pos
	for sc.pos < len(sc.s) {
		r, w := utf8.DecodeRuneInString(sc.s[sc.pos:])
		if !isIdentRune(r) || (r == '-' && false) {
			break
		}
		sc.pos += w
	}
	name := strings.TrimSpace(sc.s[start:sc.pos])
	return name, name != ""
}

// jsonPath reads ->key / ->>key / ->0 steps.
func (sc *scanner) jsonPath() ([]PathStep, *apierr.Error) {
	var steps []PathStep
	for sc.has("->") {
		arrow := "->"
		if sc.has("->>") {
			arrow = "->>"
		}
		sc.pos += len(arrow)
		neg := ""
		if sc.peek() == '-' {
			neg = "-"
			sc.pos++
		}
		key, ok := sc.ident()
		if !ok {
			return nil, sc.fail("a JSON key")
		}
		steps = append(steps, PathStep{Arrow: arrow, Key: neg + key})
	}
	return steps, nil
}

// castName reads ::type, letters, digits and underscores only, so the
// unquoted type name can never carry SQL.
func (sc *scanner) castName() (string, *apierr.Error) {
	if !sc.has("::") {
		return "", nil
	}
	sc.pos += 2
	start := sc.pos
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			sc.pos++
			continue
		}
		break
	}
	if sc.pos == start {
		return "", sc.fail("a type name")
	}
	return strings.ToLower(sc.s[start:sc.pos]), nil
}

// ParseSelect parses select=.
func ParseSelect(s string) ([]SelectItem, error) {
	sc := &scanner{s: s, what: "select parameter"}
	items, err := sc.selectList(0)
	if err != nil {
		return nil, err
	}
	if !sc.eof() {
		return nil, sc.fail("\",\" or end of input")
	}
	return items, nil
}

const maxDepth = 16

func (sc *scanner) selectList(depth int) ([]SelectItem, *apierr.Error) {
	if depth > maxDepth {
		return nil, sc.fail("a shallower select")
	}
	var items []SelectItem
	if sc.eof() || sc.peek() == ')' {
		if depth > 0 {
			// An empty embed, users(), filters its parent (with !inner or
			// users=not.is.null) but is not in the output, as in PostgREST.
			return []SelectItem{}, nil
		}
		// select= (empty) means all columns.
		return []SelectItem{{Star: true}}, nil
	}
	for {
		it, err := sc.selectItem(depth)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		if sc.peek() != ',' {
			return items, nil
		}
		sc.pos++
	}
}

func (sc *scanner) selectItem(depth int) (SelectItem, *apierr.Error) {
	if sc.peek() == '*' {
		sc.pos++
		return SelectItem{Star: true}, nil
	}
	spread := false
	if sc.has("...") {
		spread = true
		sc.pos += 3
	}
	name, ok := sc.ident()
	if !ok {
		return SelectItem{}, sc.fail("a column name, \"*\" or an embedded resource")
	}
	alias := ""
	if sc.peek() == ':' && !sc.has("::") {
		sc.pos++
		alias = name
		name, ok = sc.ident()
		if !ok {
			return SelectItem{}, sc.fail("a column name after the alias")
		}
	}
	switch {
	case sc.peek() == '!' || sc.peek() == '(':
		return sc.embedItem(&Embed{Name: name, Alias: alias, Spread: spread}, depth)
	case spread:
		return SelectItem{}, sc.fail("\"(\" after a spread resource")
	}
	return sc.fieldItem(name, alias)
}

// embedItem reads the rest of an embedded resource, name[!hint...](...),
// or count() (an aggregate, though it reads like an embed).
func (sc *scanner) embedItem(e *Embed, depth int) (SelectItem, *apierr.Error) {
	for sc.peek() == '!' {
		sc.pos++
		h, ok := sc.ident()
		if !ok {
			return SelectItem{}, sc.fail("an embedding hint")
		}
		switch {
		case h == "inner":
			e.Inner = true
		case h == "left":
			e.Inner = false
		case e.Hint != "":
			return SelectItem{}, sc.fail("\"(\"")
		default:
			e.Hint = h
		}
	}
	if sc.peek() != '(' {
		return SelectItem{}, sc.fail("\"(\"")
	}
	if e.Name == "count" && sc.has("()") {
		// count() over the rows; whether aggregates are allowed is the
		// builder's call (DB_AGGREGATES_ENABLED).
		sc.pos += 2
		cast, err := sc.castName()
		if err != nil {
			return SelectItem{}, err
		}
		return SelectItem{Agg: "count", Alias: e.Alias, AggCast: cast}, nil
	}
	sc.pos++
	sub, err := sc.selectList(depth + 1)
	if err != nil {
		return SelectItem{}, err
	}
	if sc.peek() != ')' {
		return SelectItem{}, sc.fail("\")\" or \",\"")
	}
	sc.pos++
	e.Select = sub
	return SelectItem{Embed: e}, nil
}

// fieldItem reads the rest of a column item: JSON path, cast, and an
// aggregate such as .sum() with its own cast.
func (sc *scanner) fieldItem(name, alias string) (SelectItem, *apierr.Error) {
	path, err := sc.jsonPath()
	if err != nil {
		return SelectItem{}, err
	}
	cast, err := sc.castName()
	if err != nil {
		return SelectItem{}, err
	}
	it := SelectItem{Field: &Field{Name: name, Path: path}, Alias: alias, Cast: cast}
	if !sc.has(".") {
		return it, nil
	}
	// col.sum() and the like, optionally cast: col.sum()::int.
	sc.pos++
	start := sc.pos
	fn, ok := sc.ident()
	if !ok || !aggregates[fn] || !sc.has("()") {
		sc.pos = start
		return SelectItem{}, sc.fail("an aggregate function (count, sum, avg, min, max) followed by ()")
	}
	sc.pos += 2
	if it.AggCast, err = sc.castName(); err != nil {
		return SelectItem{}, err
	}
	it.Agg = fn
	return it, nil
}

// parseFieldString parses a filter key's column part: name plus JSON path.
func parseFieldString(s string) (Field, error) {
	sc := &scanner{s: s, what: "filter"}
	name, ok := sc.ident()
	if !ok {
		return Field{}, sc.fail("a column name")
	}
	path, err := sc.jsonPath()
	if err != nil {
		return Field{}, err
	}
	if !sc.eof() {
		return Field{}, sc.fail("\"->\" or end of input")
	}
	return Field{Name: name, Path: path}, nil
}

// ParseOrder parses order=.
func ParseOrder(v string) ([]OrderTerm, error) {
	var out []OrderTerm
	for _, part := range splitTop(v, ',') {
		sc := &scanner{s: part, what: "order"}
		name, ok := sc.ident()
		if !ok {
			return nil, parseError("order", v, 0, unexpected(part, 0, "a column name"))
		}
		t := OrderTerm{}
		if sc.peek() == '(' {
			sc.pos++
			col, ok := sc.ident()
			if !ok {
				return nil, parseError("order", v, 0, unexpected(part, sc.pos, "a column name"))
			}
			path, err := sc.jsonPath()
			if err != nil {
				return nil, err
			}
			if sc.peek() != ')' {
				return nil, parseError("order", v, 0, unexpected(part, sc.pos, "\")\""))
			}
			sc.pos++
			t.Relation = name
			t.Field = Field{Name: col, Path: path}
		} else {
			path, err := sc.jsonPath()
			if err != nil {
				return nil, err
			}
			t.Field = Field{Name: name, Path: path}
		}
		for !sc.eof() {
			if sc.peek() != '.' {
				return nil, parseError("order", v, 0, unexpected(part, sc.pos, "\".\""))
			}
			sc.pos++
			start := sc.pos
			for sc.pos < len(sc.s) && sc.s[sc.pos] != '.' {
				sc.pos++
			}
			switch sc.s[start:sc.pos] {
			case "asc":
				t.Desc = false
			case "desc":
				t.Desc = true
			case "nullsfirst":
				t.Nulls = "first"
			case "nullslast":
				t.Nulls = "last"
			default:
				return nil, parseError("order", v, 0, unexpected(part, start, "asc, desc, nullsfirst or nullslast"))
			}
		}
		out = append(out, t)
	}
	return out, nil
}
