package query

// Filters: col=op.value, the (any)/(all) modifiers, lists, and the nested
// or=(…)/and=(…) logic trees.

import (
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// ParseFilter parses a filter value: [not.]op[(mod)].value.
func ParseFilter(f Field, v string) (*Filter, error) {
	sc := &scanner{s: v, what: "filter"}
	flt := &Filter{Field: f}
	if sc.has("not.") {
		flt.Negate = true
		sc.pos += 4
	}
	start := sc.pos
	for sc.pos < len(sc.s) && sc.s[sc.pos] >= 'a' && sc.s[sc.pos] <= 'z' {
		sc.pos++
	}
	op := sc.s[start:sc.pos]
	o, known := operators[op]
	if !known {
		sc.pos = start
		return nil, sc.fail("an operator (" + operatorNames + ")")
	}
	quantOK := o.quantifiable()
	flt.Op = op
	if sc.peek() == '(' {
		end := strings.IndexByte(sc.s[sc.pos:], ')')
		if end < 0 {
			return nil, sc.fail("\")\"")
		}
		mod := sc.s[sc.pos+1 : sc.pos+end]
		switch {
		case (mod == "any" || mod == "all") && quantOK:
			flt.Quant = mod
		case op == "fts" || op == "plfts" || op == "phfts" || op == "wfts":
			if mod == "" {
				return nil, sc.fail("a text search configuration")
			}
			flt.Config = mod
		default:
			sc.pos++
			return nil, sc.fail("any or all")
		}
		sc.pos += end + 1
	}
	if sc.peek() != '.' {
		return nil, sc.fail("\".\"")
	}
	sc.pos++
	flt.Value = sc.s[sc.pos:]
	switch op {
	case "in":
		list, err := parseList(sc)
		if err != nil {
			return nil, err
		}
		flt.List = list
	case "is":
		switch strings.ToLower(flt.Value) {
		case "null", "not_null", "true", "false", "unknown":
			flt.Value = strings.ToLower(flt.Value)
		default:
			return nil, sc.fail("null, not_null, true, false or unknown")
		}
	}
	if flt.Quant != "" {
		if _, err := parseBraceList(sc); err != nil {
			return nil, err
		}
	}
	return flt, nil
}

// parseList reads (a,"b,c",d) from the scanner's position.
func parseList(sc *scanner) ([]string, *apierr.Error) {
	s := sc.s[sc.pos:]
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, sc.fail("a list in parentheses")
	}
	return splitList(s[1 : len(s)-1]), nil
}

// parseBraceList checks {a,b} for (any)/(all).
func parseBraceList(sc *scanner) ([]string, *apierr.Error) {
	s := sc.s[sc.pos:]
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, sc.fail("a list in braces")
	}
	return splitList(s[1 : len(s)-1]), nil
}

// splitList splits list elements at commas outside double quotes; quoted
// elements lose their quotes and backslash escapes.
func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	var out []string
	var b strings.Builder
	inQ := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQ && c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case inQ && c == '"':
			// supabase-js does not escape quotes inside quoted elements, so
			// only a quote before a comma or the end closes the element.
			if i+1 == len(s) || s[i+1] == ',' {
				inQ = false
			} else {
				b.WriteByte(c)
			}
		case c == '"' && b.Len() == 0:
			inQ = true
		case c == ',' && !inQ:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// ParseLogic parses or=(…) / and=(…).
func ParseLogic(op, v string) (*Logic, error) {
	sc := &scanner{s: v, what: "logic tree"}
	l, err := sc.logicBody(op == "or", 0)
	if err != nil {
		return nil, err
	}
	if !sc.eof() {
		return nil, sc.fail("end of input")
	}
	return l, nil
}

// logicBody reads "(cond,cond,...)".
func (sc *scanner) logicBody(or bool, depth int) (*Logic, *apierr.Error) {
	if depth > maxDepth {
		return nil, sc.fail("a shallower logic tree")
	}
	if sc.peek() != '(' {
		return nil, sc.fail("\"(\"")
	}
	sc.pos++
	l := &Logic{Or: or}
	for {
		c, err := sc.logicTerm(depth)
		if err != nil {
			return nil, err
		}
		l.Children = append(l.Children, c)
		if sc.peek() == ',' {
			sc.pos++
			continue
		}
		if sc.peek() == ')' {
			sc.pos++
			return l, nil
		}
		return nil, sc.fail("\",\" or \")\"")
	}
}

func (sc *scanner) logicTerm(depth int) (Cond, *apierr.Error) {
	neg := false
	if sc.has("not.and(") || sc.has("not.or(") {
		neg = true
		sc.pos += 4
	}
	for _, kw := range []string{"and", "or"} {
		if sc.has(kw + "(") {
			sc.pos += len(kw)
			l, err := sc.logicBody(kw == "or", depth+1)
			if err != nil {
				return Cond{}, err
			}
			l.Negate = neg
			return Cond{Logic: l}, nil
		}
	}
	name, ok := sc.ident()
	if !ok {
		return Cond{}, sc.fail("a column name, \"and(\" or \"or(\"")
	}
	path, err := sc.jsonPath()
	if err != nil {
		return Cond{}, err
	}
	if sc.peek() != '.' {
		return Cond{}, sc.fail("\".\"")
	}
	sc.pos++
	// The value runs to the next top-level comma or closing parenthesis.
	start := sc.pos
	depthP := 0
	inQ := false
	for sc.pos < len(sc.s) {
		c := sc.s[sc.pos]
		if inQ {
			if c == '\\' && sc.pos+1 < len(sc.s) {
				sc.pos++
			} else if c == '"' && (sc.pos+1 == len(sc.s) || sc.s[sc.pos+1] == ',' || sc.s[sc.pos+1] == ')') {
				inQ = false
			}
			sc.pos++
			continue
		}
		if c == '"' {
			inQ = true
		} else if c == '(' {
			depthP++
		} else if c == ')' {
			if depthP == 0 {
				break
			}
			depthP--
		} else if c == ',' && depthP == 0 {
			break
		}
		sc.pos++
	}
	raw := sc.s[start:sc.pos]
	flt, ferr := ParseFilter(Field{Name: name, Path: path}, unquoteLogicValue(raw))
	if ferr != nil {
		e := apierr.As(ferr)
		return Cond{}, parseError(sc.what, sc.s, start, strDetails(e))
	}
	return Cond{Filter: flt}, nil
}

func strDetails(e *apierr.Error) string {
	if s, ok := e.Details.(string); ok {
		return s
	}
	return e.Message
}

// unquoteLogicValue strips double quotes around a plain value inside a
// logic tree: or=(name.eq."a,b") compares with a,b. Lists keep theirs.
func unquoteLogicValue(raw string) string {
	op, val, ok := strings.Cut(raw, ".")
	if !ok {
		return raw
	}
	prefix := ""
	if op == "not" {
		var rest string
		op, rest, ok = strings.Cut(val, ".")
		if !ok {
			return raw
		}
		prefix, val = "not.", rest
	}
	if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' && !strings.HasPrefix(op, "in") {
		inner := val[1 : len(val)-1]
		var b strings.Builder
		for i := 0; i < len(inner); i++ {
			if inner[i] == '\\' && i+1 < len(inner) {
				i++
			}
			b.WriteByte(inner[i])
		}
		val = b.String()
	}
	return prefix + op + "." + val
}
