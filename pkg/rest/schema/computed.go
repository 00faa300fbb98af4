package schema

// Computed fields and computed relationships, as PostgREST finds them: a
// function in the table's schema whose single parameter is the table's row
// type. Returning a scalar makes it a column (select and filter by its
// name); returning rows of another table or view makes it an embeddable
// relationship, to-one when it returns one row (not SETOF, or ROWS 1).

import "strings"

// rowParamType is how format_type names t's row type under the empty
// search_path the cache loads with: schema-qualified, quoted only where
// needed.
func rowParamType(t *Table) string {
	q := t.rowQI()
	return quoteIfNeeded(q.Schema) + "." + quoteIfNeeded(q.Name)
}

// rowQI is the table whose row type t's rows have: t itself, or for a
// function's result, the table it returns rows of.
func (t *Table) rowQI() QI {
	if t.RowType != nil {
		return *t.RowType
	}
	return t.QI()
}

func quoteIfNeeded(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// takesRow reports whether f's only parameter is t's row type.
func takesRow(f *Func, t *Table) bool {
	return len(f.Params) == 1 && f.Params[0].Type == rowParamType(t)
}

// ComputedField returns the function that computes column name of t, or
// nil.
func (c *Cache) ComputedField(t *Table, name string) *Func {
	for _, f := range c.Funcs[QI{t.rowQI().Schema, name}] {
		if takesRow(f, t) && !f.RetSet && f.RetKind == "scalar" {
			return f
		}
	}
	return nil
}

// ComputedRel returns the function embedding name from t returns rows of a
// cached table or view, or nil.
func (c *Cache) ComputedRel(t *Table, name string) *Func {
	for _, f := range c.Funcs[QI{t.rowQI().Schema, name}] {
		if takesRow(f, t) && f.RetKind == "composite" && f.RetRel != nil && c.Tables[*f.RetRel] != nil {
			return f
		}
	}
	return nil
}

// SingleRow says whether a computed relationship embeds as an object.
func (f *Func) SingleRow() bool { return !f.RetSet || f.Rows == 1 }
