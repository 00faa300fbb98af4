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

// Function names are hinted only at PostgREST's 0.75 (getFuzzyHint's
// HintProcedure): its own doctests of noRpcHint ("other" no longer finds
// "another"), and postgrest-js's test schema, where the computed fields'
// functions blurb_message(messages) and created_ago(users_audit), not
// callable, get no look-alike while a one-word slip still does.
func TestFuzzyNameHintsNeedPostgRESTsScore(t *testing.T) {
	doctest := NewFuzzySet([]string{"test", "another"})
	names := NewFuzzySet([]string{
		"get_status", "get_username_and_status", "offline_user", "set_users_offline", "void_func",
		"function_with_optional_param", "function_with_array_param", "get_user_profile",
		"get_user_profile_non_nullable", "get_messages", "get_messages_by_username", "get_user_messages",
		"get_active_user_messages", "get_recent_messages_by_username", "get_user_recent_messages",
		"get_user_first_message", "postgrest_unresolvable_function", "postgrest_resolvable_with_override_function",
		"polymorphic_function_with_different_return", "polymorphic_function_with_no_params_or_unnamed",
		"polymorphic_function_with_unnamed_json", "polymorphic_function_with_unnamed_jsonb",
		"polymorphic_function_with_unnamed_text", "polymorphic_function_with_unnamed_default",
		"polymorphic_function_with_unnamed_default_overload", "function_returning_row",
		"function_returning_single_row", "function_returning_set_of_rows",
	})
	cases := []struct {
		set      *FuzzySet
		in, want string
	}{
		{doctest, "testt", "test"},
		{doctest, "other", ""},
		{doctest, "noclosealternative", ""},
		{names, "polymorphic_function_with_unnamed_integer", "polymorphic_function_with_unnamed_text"},
		{names, "blurb_message", ""},
		{names, "created_ago", ""},
		{names, "get_statuss", "get_status"},
	}
	for _, c := range cases {
		if got, ok := c.set.ClosestAbove(c.in, NameHintScore); got != c.want || ok != (c.want != "") {
			t.Errorf("ClosestAbove(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	// The library's own 0.33 still finds the looser matches.
	if got, _ := names.Closest("blurb_message"); got != "get_messages" {
		t.Errorf("Closest(blurb_message) = %q, want get_messages", got)
	}
}
