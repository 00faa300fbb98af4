package query

import (
	"fmt"
	"net/http"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// parseError is PostgREST's PGRST100: the query string does not parse.
func parseError(what, input string, pos int, detail string) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, "PGRST100", "\"failed to parse %s (%s)\" (line 1, column %d)", what, input, pos+1)
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
func rangeError(details string) *apierr.Error {
	e := apierr.New(http.StatusRequestedRangeNotSatisfiable, "PGRST103", "Requested range not satisfiable")
	e.Details = details
	return e
}
