package pgchanges

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// condition is one "column=op.value" term of a realtime-js filter.
type condition struct {
	Column string
	Op     string   // eq, neq, lt, lte, gt, gte, in
	Values []string // one value, or the list of in
}

// filterOps are the operators Supabase's postgres_changes accepts.
var filterOps = map[string]bool{"eq": true, "neq": true, "lt": true, "lte": true, "gt": true, "gte": true, "in": true}

// termHead is how a further "column=op." term begins after a comma, so
// that a comma inside a value ("name=eq.a,b") stays part of it unless what
// follows reads as a new term.
var termHead = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*=(eq|neq|lt|lte|gt|gte|in)\.`)

// parseFilter reads a realtime-js filter: "col=op.value", "col=in.(a,b)"
// (elements may be double-quoted), several terms joined by commas (AND).
// "" is no filter.
func parseFilter(s string) ([]condition, error) {
	if s == "" {
		return nil, nil
	}
	var out []condition
	depth, quoted, from := 0, false, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '"':
				quoted = !quoted
			case '(':
				if !quoted {
					depth++
				}
			case ')':
				if !quoted && depth > 0 {
					depth--
				}
			}
			if s[i] != ',' || quoted || depth > 0 || !termHead.MatchString(s[i+1:]) {
				continue
			}
		}
		c, err := parseCondition(s[from:i])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
		from = i + 1
	}
	return out, nil
}

func parseCondition(t string) (condition, error) {
	col, opval, ok := strings.Cut(t, "=")
	if !ok || col == "" {
		return condition{}, fmt.Errorf("filter %q is not of the form column=operator.value", t)
	}
	op, val, ok := strings.Cut(opval, ".")
	if !ok || !filterOps[op] {
		return condition{}, fmt.Errorf("filter %q: operator must be one of eq, neq, lt, lte, gt, gte, in", t)
	}
	c := condition{Column: col, Op: op}
	if op != "in" {
		c.Values = []string{val}
		return c, nil
	}
	if len(val) < 2 || val[0] != '(' || val[len(val)-1] != ')' {
		return condition{}, fmt.Errorf("filter %q: in takes a list in parentheses, e.g. in.(1,2)", t)
	}
	list, err := splitList(val[1 : len(val)-1])
	if err != nil {
		return condition{}, fmt.Errorf("filter %q: %w", t, err)
	}
	if len(list) == 0 {
		return condition{}, fmt.Errorf("filter %q: in needs at least one value", t)
	}
	if len(list) > 100 {
		return condition{}, fmt.Errorf("filter %q: in takes at most 100 values", t)
	}
	c.Values = list
	return c, nil
}

// splitList splits a,b,"c,d" on commas outside double quotes.
func splitList(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '"':
			quoted = !quoted
		case ch == '\\' && quoted && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case ch == ',' && !quoted:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	if quoted {
		return nil, errors.New("unterminated quote")
	}
	return append(out, strings.TrimSpace(cur.String())), nil
}

// matches says whether row (of change c's columns) passes every
// condition. A NULL, a value the WAL did not carry, an unknown column or
// a value that does not parse as the column's type never matches.
func matches(conds []condition, c *change, row []value) bool {
	for _, cond := range conds {
		i := c.columnIndex(cond.Column)
		if i < 0 || i >= len(row) || row[i].Null || row[i].Missing {
			return false
		}
		if !holds(cond, c.Columns[i].Type, row[i].Text) {
			return false
		}
	}
	return true
}

func holds(cond condition, typ, v string) bool {
	if cond.Op == "in" {
		for _, w := range cond.Values {
			if n, ok := compare(typ, v, w); ok && n == 0 {
				return true
			}
		}
		return false
	}
	n, ok := compare(typ, v, cond.Values[0])
	if !ok {
		return false
	}
	switch cond.Op {
	case "eq":
		return n == 0
	case "neq":
		return n != 0
	case "lt":
		return n < 0
	case "lte":
		return n <= 0
	case "gt":
		return n > 0
	}
	return n >= 0 // gte
}

func (c *change) columnIndex(name string) int {
	for i, col := range c.Columns {
		if col.Name == name {
			return i
		}
	}
	return -1
}
