package query

import (
	"fmt"
	"net/http"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// parseError is PostgREST's PGRST100: the query string does not parse.
func parseError(what, input string, pos int, detail string) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, pgrst.CodeParse, "\"failed to parse %s (%s)\" (line 1, column %d)", what, input, pos+1)
	e.Details = detail
	return e
}

func unexpected(s string, pos int, expecting string) string {
	if pos >= len(s) {
		return "unexpected end of input expecting " + expecting
	}
	return fmt.Sprintf("unexpected %q expecting %s", s[pos:pos+1], expecting)
}

// ColumnNotFound is the 42703 PostgreSQL itself would raise for a column
// of the select, a filter or an order, with its "Perhaps you meant" hint.
func ColumnNotFound(table, col string, candidates []string, closest func(string, []string) string) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, "42703", "column %s.%s does not exist", table, col)
	if c := closest(col, candidates); c != "" {
		e.Hint = fmt.Sprintf("Perhaps you meant to reference the column \"%s.%s\".", table, c)
	}
	return e
}

// rangeError is PGRST103 (416).
func rangeError(details string) *apierr.Error { return pgrst.RangeNotSatisfiable(details) }

// TableNotFound is PGRST205 with a hint naming the closest table.
func TableNotFound(c *schema.Cache, sch, name string) *apierr.Error {
	e := apierr.New(http.StatusNotFound, pgrst.CodeTableNotFound, "Could not find the table '%s.%s' in the schema cache", sch, name)
	if s := schema.Closest(name, c.TableNames(sch)); s != "" {
		e.Hint = fmt.Sprintf("Perhaps you meant the table '%s.%s'", sch, s)
	}
	return e
}

// ColumnNotInCache is PGRST204, for columns named by a write.
func ColumnNotInCache(table, col string) *apierr.Error {
	return apierr.New(http.StatusBadRequest, pgrst.CodeColumnNotFound, "Could not find the '%s' column of '%s' in the schema cache", col, table)
}
