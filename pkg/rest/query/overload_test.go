package query

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// overloadCache holds overload sets shaped like PostgREST's RpcSpec
// fixtures: unnamed parameters, defaults, and names shared across types.
func overloadCache() *schema.Cache {
	c := &schema.Cache{Schemas: []string{"public"}, Tables: map[schema.QI]*schema.Table{}, Funcs: map[schema.QI][]*schema.Func{}}
	oid := int64(100)
	add := func(name string, params ...schema.Param) {
		oid++
		f := &schema.Func{Schema: "public", Name: name, OID: oid, Params: params, RetKind: "scalar", RetType: "integer"}
		q := schema.QI{Schema: "public", Name: name}
		// Stored newest first, so the resolver's own ordering is tested.
		c.Funcs[q] = append([]*schema.Func{f}, c.Funcs[q]...)
	}
	p := func(name, typ string) schema.Param { return schema.Param{Name: name, Type: typ} }
	d := func(name, typ string) schema.Param { return schema.Param{Name: name, Type: typ, HasDefault: true} }
	add("unnamed_json", p("", "json"))
	add("unnamed_text", p("", "text"))
	add("unnamed_int", p("", "integer"))
	add("unnamed_bool", p("", "boolean"))
	add("overloaded_unnamed", p("x", "integer"), p("y", "integer"))
	add("overloaded_unnamed")
	add("overloaded_unnamed", p("", "json"))
	add("overloaded_unnamed", p("", "text"))
	add("json_or_jsonb", p("", "json"))
	add("json_or_jsonb", p("", "jsonb"))
	add("defaults", d("", "text"))
	add("defaults", d("", "integer"))
	add("defaults")
	add("same_args", p("arg", "text"), p("num", "integer"))
	add("same_args", p("arg", "xml"))
	add("same_args", p("arg", "integer"))
	add("add_them", p("a", "integer"), p("b", "integer"))
	add("sayhello", p("name", "text"))
	add("two_unnamed", p("", "text"), p("", "text"))
	// A computed field's function: one unnamed parameter of a table type.
	add("blurb_message", p("", "messages"))
	add("get_messages", p("channel_row", "channels"))
	return c
}

func TestResolveFunc(t *testing.T) {
	c := overloadCache()
	post := func(media string, keys ...string) CallInput { return CallInput{Post: true, Media: media, Keys: keys} }
	get := func(keys ...string) CallInput { return CallInput{Keys: keys} }
	cases := []resolveCase{
		{name: "unnamed json takes any object", fn: "unnamed_json", in: post(MediaJSON, "A", "B"), want: ":json", whole: true},
		{name: "{\"\": v} binds the unnamed parameter by its empty name", fn: "unnamed_text", in: post(MediaJSON, ""), want: ":text", whole: true},
		{name: "unnamed text takes text/plain", fn: "unnamed_text", in: post(MediaText), want: ":text", whole: true},
		{name: "unnamed int is never exposed", fn: "unnamed_int", in: post(MediaJSON, ""), code: "PGRST202",
			msg: "Could not find the function public.unnamed_int() in the schema cache", hint: "Perhaps you meant to call the function public.unnamed_text"},
		{name: "unnamed bool is never exposed to GET", fn: "unnamed_bool", in: get(), code: "PGRST202"},
		{name: "raw body without its function has no hint", fn: "unnamed_int", in: post(MediaText), code: "PGRST202",
			msg: "Could not find the function public.unnamed_int in the schema cache", noHint: true},
		{name: "several unnamed parameters are not callable", fn: "two_unnamed", in: post(MediaJSON, ""), code: "PGRST202"},
		{name: "named overload wins over the unnamed fallback", fn: "overloaded_unnamed", in: post(MediaJSON, "x", "y"), want: "x,y"},
		{name: "no keys picks the function without parameters", fn: "overloaded_unnamed", in: post(MediaJSON), want: ""},
		{name: "unknown keys fall back to the unnamed json", fn: "overloaded_unnamed", in: post(MediaJSON, "A"), want: ":json", whole: true},
		{name: "text/plain falls back to the unnamed text", fn: "overloaded_unnamed", in: post(MediaText), want: ":text", whole: true},
		{name: "GET never falls back", fn: "overloaded_unnamed", in: get(), want: ""},
		{name: "CSV never falls back", fn: "overloaded_unnamed", in: post(MediaOther, "a", "b"), code: "PGRST202",
			hint: "Perhaps you meant to call the function public.overloaded_unnamed(x, y)"},
		{name: "json and jsonb fallbacks are ambiguous", fn: "json_or_jsonb", in: post(MediaJSON, "A"), code: "PGRST203",
			msg: "Could not choose the best candidate function between: public.json_or_jsonb( => json), public.json_or_jsonb( => jsonb)"},
		{name: "defaults: f() and f(text default) both fit no keys", fn: "defaults", in: post(MediaJSON), code: "PGRST203",
			msg: "Could not choose the best candidate function between: public.defaults(), public.defaults( => text)"},
		{name: "defaults: text/plain picks f(text default)", fn: "defaults", in: post(MediaText), want: ":text", whole: true},
		{name: "same names, other types: fewest parameters first", fn: "same_args", in: get("arg"), code: "PGRST203",
			msg: "Could not choose the best candidate function between: public.same_args(arg => integer), public.same_args(arg => xml)"},
		{name: "unknown argument is not ignored", fn: "add_them", in: get("a", "b", "smthelse"), code: "PGRST202",
			msg: "Could not find the function public.add_them(a, b, smthelse) in the schema cache", hint: "Perhaps you meant to call the function public.add_them(a, b)"},
		{name: "a computed field's function gets no look-alike", fn: "blurb_message", in: post(MediaJSON), code: "PGRST202",
			msg: "Could not find the function public.blurb_message without parameters in the schema cache", noHint: true},
		{name: "nor with other arguments", fn: "blurb_message", in: post(MediaJSON, ""), code: "PGRST202", noHint: true},
		{name: "close parameter name", fn: "sayhello", in: get("nam"), code: "PGRST202", hint: "Perhaps you meant to call the function public.sayhello(name)"},
		{name: "close function name", fn: "sayhell", in: get(), code: "PGRST202",
			msg: "Could not find the function public.sayhell without parameters in the schema cache", hint: "Perhaps you meant to call the function public.sayhello"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ResolveFunc(c, "public", tc.fn, tc.in)
			tc.check(t, r, err)
		})
	}
}

// resolveCase is one call and what ResolveFunc must answer.
type resolveCase struct {
	name, fn string
	in       CallInput
	// want is the chosen overload's parameter list, e.g. "x,y" or
	// ":json" for an unnamed json parameter; whole says the body goes
	// to it whole.
	want  string
	whole bool
	code  string
	msg   string
	// hint is checked when set; noHint wants null.
	hint   string
	noHint bool
}

func (tc resolveCase) check(t *testing.T, r Resolved, err error) {
	t.Helper()
	if tc.code != "" {
		var e *apierr.Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Fatalf("err = %v, want %s", err, tc.code)
		}
		wantStatus := http.StatusNotFound
		if tc.code == "PGRST203" {
			wantStatus = http.StatusMultipleChoices
		}
		if e.Status != wantStatus {
			t.Errorf("status %d, want %d", e.Status, wantStatus)
		}
		if tc.msg != "" && e.Message != tc.msg {
			t.Errorf("message %q\n want %q", e.Message, tc.msg)
		}
		if (tc.hint != "" && e.Hint != tc.hint) || (tc.noHint && e.Hint != nil) {
			t.Errorf("hint %v, want %q", e.Hint, tc.hint)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, p := range r.Func.Params {
		if p.Name == "" {
			ps = append(ps, ":"+p.Type)
		} else {
			ps = append(ps, p.Name)
		}
	}
	if got := strings.Join(ps, ","); got != tc.want || r.Whole != tc.whole {
		t.Errorf("chose (%s) whole=%v, want (%s) whole=%v", got, r.Whole, tc.want, tc.whole)
	}
}

func TestIsFilterValue(t *testing.T) {
	for v, want := range map[string]bool{
		"eq.1": true, "not.gt.2": true, "in.(1,2)": true, "fts(english).cat": true, "eq(any).{1,2}": true,
		"5": false, "blabla": false, "eq": false, "equal.1": false, "": false, "not.5": false,
	} {
		if got := IsFilterValue(v); got != want {
			t.Errorf("IsFilterValue(%q) = %v, want %v", v, got, want)
		}
	}
}
