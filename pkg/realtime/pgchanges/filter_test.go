package pgchanges

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

func TestParseFilter(t *testing.T) {
	tests := []struct {
		in      string
		want    []condition
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "id=eq.5", want: []condition{{"id", "eq", []string{"5"}}}},
		{in: "name=eq.a,b", want: []condition{{"name", "eq", []string{"a,b"}}}},
		{in: "name=in.(a,b)", want: []condition{{"name", "in", []string{"a", "b"}}}},
		{in: `name=in.("a,b",c)`, want: []condition{{"name", "in", []string{"a,b", "c"}}}},
		{in: "n=gt.1,n=lte.9", want: []condition{{"n", "gt", []string{"1"}}, {"n", "lte", []string{"9"}}}},
		{in: "tag=in.(x,y),n=neq.3", want: []condition{{"tag", "in", []string{"x", "y"}}, {"n", "neq", []string{"3"}}}},
		{in: "id", wantErr: true},
		{in: "=eq.5", wantErr: true},
		{in: "id=like.5", wantErr: true},
		{in: "id=eq5", wantErr: true},
		{in: "id=in.1,2", wantErr: true},
		{in: "id=in.()", wantErr: true},
		{in: `id=in.("a)`, wantErr: true},
	}
	for _, tt := range tests {
		got, err := parseFilter(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("parseFilter(%q) error %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseFilter(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestCompareTyped(t *testing.T) {
	tests := []struct {
		typ, a, b string
		want      int
		ok        bool
	}{
		{"int4", "9", "10", -1, true}, // not byte order
		{"int8", "9223372036854775807", "9223372036854775806", 1, true},
		{"numeric", "1.50", "1.5", 0, true},
		{"float8", "NaN", "NaN", 0, true},
		{"float8", "NaN", "1", 0, false},
		{"int4", "x", "1", 0, false},
		{"bool", "t", "true", 0, true},
		{"bool", "f", "true", -1, true},
		{"timestamptz", "2026-11-27 20:00:00+00", "2026-11-27T21:00:00+01:00", 0, true},
		{"timestamptz", "2026-11-27 20:00:00.5+00", "2026-11-27T20:00:00Z", 1, true},
		{"date", "2026-01-02", "2025-12-31", 1, true},
		{"uuid", "0000000A-0000-4000-8000-000000000000", "0000000a-0000-4000-8000-000000000000", 0, true},
		{"text", "B", "a", -1, true},
	}
	for _, tt := range tests {
		got, ok := compare(tt.typ, tt.a, tt.b)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("compare(%s, %q, %q) = %d, %v; want %d, %v", tt.typ, tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
	}
}

func TestJSONValue(t *testing.T) {
	tests := []struct{ typ, in, want string }{
		{"int4", "42", "42"},
		{"numeric", "NaN", `"NaN"`},
		{"float8", "Infinity", `"Infinity"`},
		{"float8", "1.5e+20", "1.5e+20"},
		{"bool", "t", "true"},
		{"jsonb", `{"a": [1, 2]}`, `{"a": [1, 2]}`},
		{"timestamptz", "2026-11-27 20:00:00.123+00", `"2026-11-27T20:00:00.123+00:00"`},
		{"timestamptz", "2026-11-27 20:00:00+05:30", `"2026-11-27T20:00:00+05:30"`},
		{"timestamp", "2026-11-27 20:00:00", `"2026-11-27T20:00:00"`},
		{"timestamptz", "infinity", `"infinity"`},
		{"_int4", "{1,2,NULL}", "[1,2,null]"},
		{"_text", `{a,"b,c","d\"e",NULL,"NULL"}`, `["a","b,c","d\"e",null,"NULL"]`},
		{"_int4", "{{1,2},{3,4}}", `"{{1,2},{3,4}}"`},
		{"_text", "{}", "[]"},
		{"text", `say "hi"`, `"say \"hi\""`},
	}
	for _, tt := range tests {
		if got := string(jsonValue(tt.typ, tt.in)); got != tt.want {
			t.Errorf("jsonValue(%s, %q) = %s, want %s", tt.typ, tt.in, got, tt.want)
		}
	}
}

// Filters on typed columns: each operator, over a table without RLS.
func TestFiltersTyped(t *testing.T) {
	b := setup(t)
	s, _ := b.gateway(t)
	waitLeading(t, s)
	filters := map[int]string{
		1: "n=eq.10", 2: "n=neq.10", 3: "n=lt.10", 4: "n=lte.10", 5: "n=gt.9", 6: "n=gte.100",
		7: "price=gt.1.5", 8: "tag=in.(red,blue)", 9: "ok=eq.true", 10: "at=lt.2026-06-01T00:00:00Z",
		11: "ref=eq.0000000A-0000-4000-8000-000000000000", 12: "big=gt.9007199254740993",
		13: "n=gte.5,tag=eq.red", 14: `tag=in.("a,b")`,
	}
	var subs []Subscription
	for id, f := range filters {
		subs = append(subs, Subscription{ID: id, Event: "INSERT", Schema: "public", Table: "readings", Filter: f, Role: "anon"})
	}
	all := newSink()
	defer s.Subscribe(subs, all.deliver)()
	rows := []string{
		`(1, 10, 9007199254740994, 1.5, true, '2026-01-01T00:00:00Z', 'red', '0000000a-0000-4000-8000-000000000000')`,
		`(2, 9, 9007199254740993, 1.51, false, '2026-07-01T00:00:00Z', 'blue', NULL)`,
		`(3, 100, NULL, NULL, NULL, NULL, 'a,b', NULL)`,
	}
	for _, r := range rows {
		b.exec(t, "INSERT INTO public.readings (id, n, big, price, ok, at, tag, ref) VALUES "+r)
	}
	ev := all.waitFor(t, 3)
	want := map[float64][]int{
		1: {1, 4, 5, 8, 9, 10, 11, 12, 13},
		2: {2, 3, 4, 7, 8},
		3: {2, 5, 6, 14},
	}
	for _, e := range ev {
		id := e.Data["record"].(map[string]any)["id"].(float64)
		got := append([]int(nil), e.IDs...)
		sort.Ints(got)
		if fmt.Sprint(got) != fmt.Sprint(want[id]) {
			t.Errorf("row %v matched bindings %v, want %v", id, got, want[id])
		}
	}
}
