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
func ColumnNotFound(table, col string, candidates []string) *apierr.Error {
	e := apierr.New(http.StatusBadRequest, "42703", "column %s.%s does not exist", table, col)
	switch best := columnHints(col, candidates); len(best) {
	case 1:
		e.Hint = fmt.Sprintf("Perhaps you meant to reference the column \"%s.%s\".", table, best[0])
	case 2:
		e.Hint = fmt.Sprintf("Perhaps you meant to reference the column \"%s.%s\" or the column \"%s.%s\".", table, best[0], table, best[1])
	}
	return e
}

// columnHints picks the columns PostgreSQL's hint for an unknown column
// names (errorMissingColumn): Levenshtein distance at most 3 and at most
// half the typed name's length; the closest one, or two that tie, and
// none when a third ties with them (PostgreSQL then drops both and only a
// closer column may still be suggested).
func columnHints(col string, candidates []string) []string {
	const maxDistance = 3
	dist := maxDistance + 1
	var first, second string
	for _, c := range candidates {
		d := schema.Levenshtein(c, col)
		if d > len(col)/2 {
			continue
		}
		switch {
		case d < dist:
			dist, first, second = d, c, ""
		case d == dist && second != "":
			first, second = "", ""
		case d == dist && first != "":
			second = c
		}
	}
	switch {
	case first == "":
		return nil
	case second == "":
		return []string{first}
	}
	return []string{first, second}
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
