package query

import (
	"strings"
	"testing"
)

// TestColumnHintsFollowPostgreSQL checks the hint of an unknown column
// against PostgreSQL's rule (parse_relation.c): distance at most 3 and at
// most half the typed name, one or two equally close columns, none for
// three. postgrest-js's suite expects null for messages(sum) and for
// users.missing_column.
func TestColumnHintsFollowPostgreSQL(t *testing.T) {
	messages := []string{"id", "data", "message", "username", "channel_id"}
	users := []string{"username", "data", "age_range", "status", "catchphrase"}
	cases := []struct {
		col   string
		cands []string
		want  string
	}{
		{"sum", messages, ""},
		{"users", messages, ""},
		{"missing_column", users, ""},
		{"usernam", messages, "username"},
		{"mesage", messages, "message"},
		{"dat", messages, "data"},
		{"ab", []string{"aa", "bb"}, "aa,bb"},
		{"ab", []string{"aa", "bb", "cb"}, ""},
		{"ab", []string{"aa", "bb", "cb", "ab2"}, ""},
	}
	for _, c := range cases {
		if got := strings.Join(columnHints(c.col, c.cands), ","); got != c.want {
			t.Errorf("columnHints(%q) = %q, want %q", c.col, got, c.want)
		}
	}
	e := ColumnNotFound("messages_1", "sum", messages)
	if e.Message != "column messages_1.sum does not exist" || e.Hint != nil || e.Code != "42703" {
		t.Errorf("ColumnNotFound: %+v", e)
	}
	e = ColumnNotFound("t", "ab", []string{"aa", "bb"})
	if e.Hint != `Perhaps you meant to reference the column "t.aa" or the column "t.bb".` {
		t.Errorf("two-column hint: %v", e.Hint)
	}
}
