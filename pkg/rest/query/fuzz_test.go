package query

import (
	"errors"
	"testing"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// FuzzParseQuery checks the grammar's property: whatever the query string,
// parsing and planning never panic, and every failure is an apierr with a
// client status (4xx, or PostgREST's 300 for an ambiguous embed).
func FuzzParseQuery(f *testing.F) {
	for _, c := range readCases {
		f.Add(c.table, c.query)
	}
	for _, c := range errorCases {
		f.Add(c.table, c.query)
	}
	for _, s := range []string{
		"select=*,labels(label_name,label_url)", "or=(a.eq.1,b.eq.\"x,y\")", "label_name=in.(\"unterminated",
		"select=a:b::c->d->>e", "order=labels(label_name).desc.nullsfirst", "not.or=(not.and(id.eq.1))",
		"select=" + string(make([]byte, 40)), "id=eq(any).{1,2", "select=...labels(*)", "select=id,...releases(id)",
		"releases.releases.id=eq.1", "%", "=&&=", "select=\"quoted col\"", "tags=ov.(a,b)", "data->>-1=eq.x",
	} {
		f.Add("labels", s)
		f.Add("releases", s)
	}
	f.Fuzz(func(t *testing.T, table, raw string) {
		if table != "labels" && table != "releases" && table != "messages" && table != "people" {
			table = "labels"
		}
		st, err := buildRead(table, raw, true)
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: error is not an apierr: %T %v", raw, err, err)
			}
			if !(e.Status >= 400 && e.Status < 500) && !(e.Status == 300 && e.Code == "PGRST201") {
				t.Fatalf("%q: status %d (%s) is not a client error", raw, e.Status, e.Code)
			}
			return
		}
		if st.SQL == "" {
			t.Fatalf("%q: empty SQL", raw)
		}
	})
}
