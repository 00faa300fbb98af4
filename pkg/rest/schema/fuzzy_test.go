package schema

import "testing"

// The cases are PostgREST's own examples for its function hints (the
// doctests of noRpcHint in its Error module): names and sorted
// parameter lists, with and without a close enough match.
func TestFuzzySetMatchesPostgRESTHints(t *testing.T) {
	names := NewFuzzySet([]string{"test", "another"})
	params := NewFuzzySet([]string{"(name, param, val)", "(attr, id)"})
	cases := []struct {
		set  *FuzzySet
		in   string
		want string
	}{
		{names, "testt", "test"},
		{names, "other", "another"},
		{names, "noclosealternative", ""},
		{params, "(nam, pqaram, vall)", "(name, param, val)"},
		{params, "(param, val)", "(name, param, val)"},
		{params, "(attrs, id)", "(attr, id)"},
		{params, "(id)", "(attr, id)"},
		{params, "(noclosealternative)", ""},
		{names, "TEST", "test"},
	}
	for _, c := range cases {
		got, ok := c.set.Closest(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}
