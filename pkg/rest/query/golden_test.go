package query

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/apierr"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// goldenCase is one query string and what it must become.
type goldenCase struct {
	name, table, query string
	count              bool
}

var readCases = []goldenCase{
	{"select columns", "labels", "select=id,label_name", false},
	{"star default", "labels", "", false},
	{"rename cast json path", "labels", "select=name:label_name,id::text,data->a->>b,first:data->tags->0", false},
	{"many-to-one embed", "releases", "select=title,labels(label_name)", false},
	{"one-to-many embed with modifiers", "labels", "select=id,releases(title)&releases.order=title.desc&releases.limit=2&releases.offset=1&releases.title=like.*x*", false},
	{"inner embed filters parent", "labels", "select=id,releases!inner(id)&releases.title=eq.A", false},
	{"embed disambiguated by fk", "messages", "select=body,sender:people!messages_sender_id_fkey(name),receiver:people!receiver_id(name)", false},
	{"embed null filter", "labels", "select=id,releases(id)&releases=not.is.null", false},
	{"nested embed", "releases", "select=id,labels(id,releases(title))", false},
	{"comparison operators", "labels", "id=gt.1&id=lt.10&id=gte.2&id=lte.9&id=neq.5&label_name=eq.x", true},
	{"like ilike match imatch", "labels", "label_name=like.*a*&label_url=ilike.HTTPS*&label_name=match.^A&label_name=imatch.^a", false},
	{"in with quotes commas parens", "labels", `label_name=in.(a,"b,c","d(e)",f "g",x y)&id=in.(1,2,3)`, false},
	{"is and isdistinct", "labels", "created_at=is.null&label_url=not.is.null&label_name=isdistinct.x", false},
	{"array operators", "labels", "tags=cs.{a,b c}&tags=cd.{a,b,c}&tags=ov.{x,y}", false},
	{"json contains", "labels", `data=cs.{"k":"v"}`, false},
	{"range operators", "releases", "span=sl.(1,5)&span=sr.[10,20]&span=nxl.[0,3]&span=nxr.[0,3]&span=adj.[5,6)&span=ov.[1,2]", false},
	{"full text search", "releases", "doc=fts.cat&doc=plfts(english).fat cats&doc=phfts.a b&doc=wfts(simple).\"a b\" -c&title=fts(english).hello", false},
	{"any all modifiers", "labels", "label_name=like(any).{a*,b*}&id=eq(all).{1,2}", false},
	{"not prefix", "labels", "id=not.eq.1&label_name=not.in.(a,b)", false},
	{"or and nested", "labels", "or=(id.eq.1,and(label_name.eq.\"a,b\",id.gt.2),not.or(tags.cs.{x},id.in.(4,5)))", false},
	{"not and", "labels", "not.and=(id.gt.1,id.lt.5)", false},
	{"json path filter", "labels", "data->>name=eq.x&data->n=eq.1", false},
	{"json column filter", "releases", "meta->k=eq.1", false},
	{"order variants", "labels", "order=label_name.desc.nullslast,id,created_at.asc.nullsfirst,data->>x.desc", false},
	{"related order", "releases", "select=id,labels(label_name)&order=labels(label_name).desc", false},
	{"limit offset count", "labels", "limit=5&offset=10", true},
	{"repeated filters anded", "labels", "id=gt.1&id=gt.2", false},
	{"one-to-one embed from referenced side", "people", "select=name,profiles(bio)&order=profiles(bio)", false},
	{"one-to-one embed from referencing side", "profiles", "select=bio,people(name)", false},
	{"many-to-many embed", "labels", "select=id,tags(name)&tags.order=name&tags.limit=2", false},
	{"many-to-many embed hinted inner", "labels", "select=id,tags!label_tags!inner(name)&tags.name=eq.x", false},
	{"many-to-many reverse", "tags", "select=name,labels(label_name)", false},
}

var errorCases = []struct {
	name, table, query string
	status             int
	code               string
}{
	{"unknown column in select", "labels", "select=nmae", 400, "42703"},
	{"unknown column in filter", "labels", "nope=eq.1", 400, "42703"},
	{"unknown column in order", "labels", "order=nope", 400, "42703"},
	{"unknown relationship", "labels", "select=*,releasez(*)", 400, "PGRST200"},
	{"ambiguous relationship", "messages", "select=*,people(*)", 300, "PGRST201"},
	{"filter on non-embedded", "labels", "releases.id=eq.1", 400, "PGRST108"},
	{"bad operator", "labels", "id=xx.1", 400, "PGRST100"},
	{"bad is value", "labels", "id=is.maybe", 400, "PGRST100"},
	{"unbalanced select", "labels", "select=id,releases(id", 400, "PGRST100"},
	{"bad order", "labels", "order=id.sideways", 400, "PGRST100"},
	{"bad logic", "labels", "or=(id.eq.1", 400, "PGRST100"},
	{"bad limit", "labels", "limit=ten", 400, "PGRST100"},
	{"negative limit", "labels", "limit=-1", 416, "PGRST103"},
	{"aggregate", "labels", "select=count()", 400, "PGRST123"},
	{"related order on to-many", "labels", "select=id,releases(id)&order=releases(id)", 400, "PGRST118"},
	{"embedded filter operator", "labels", "select=id,releases(id)&releases=eq.1", 400, "PGRST120"},
	{"bad escape", "labels", "id=eq.%zz", 400, "PGRST100"},
	{"many-to-many bad hint", "labels", "select=id,tags!nope(name)", 400, "PGRST200"},
	{"related order on many-to-many", "labels", "select=id,tags(name)&order=tags(name)", 400, "PGRST118"},
	{"spread to-many needs aggregates", "labels", "select=id,...releases(title)", 400, "PGRST123"},
	{"spread to-one aggregate needs aggregates", "releases", "select=title,...labels(count())", 400, "PGRST123"},
}

func buildRead(table, raw string, count bool) (*Statement, error) {
	c := fixture()
	pairs, err := SplitQuery(raw)
	if err != nil {
		return nil, err
	}
	req, err := Parse(pairs, nil)
	if err != nil {
		return nil, err
	}
	return NewBuilder(c).Read(Target{Table: c.Table("public", table)}, req, ReadOpts{Count: count, Limit: req.Root().Limit, Offset: req.Root().Offset})
}

func render(st *Statement) string {
	var sb strings.Builder
	sb.WriteString(st.SQL)
	for i, a := range st.Args {
		fmt.Fprintf(&sb, "\n$%d = %q", i+1, *a)
	}
	return sb.String()
}

// checkGolden compares got with testdata/<file>, or rewrites it with -update.
func checkGolden(t *testing.T, file string, got string) {
	t.Helper()
	path := "testdata/" + file
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s", path, got)
	}
}

func TestReadGolden(t *testing.T) {
	var sb strings.Builder
	for _, c := range readCases {
		st, err := buildRead(c.table, c.query, c.count)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		fmt.Fprintf(&sb, "### %s\nGET /%s?%s\n---\n%s\n\n", c.name, c.table, c.query, render(st))
	}
	checkGolden(t, "read.golden", sb.String())
}

func TestReadErrors(t *testing.T) {
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildRead(c.table, c.query, false)
			if err == nil {
				t.Fatalf("no error")
			}
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("not an apierr: %T %v", err, err)
			}
			if e.Status != c.status || e.Code != c.code {
				t.Fatalf("got %d %s (%s), want %d %s", e.Status, e.Code, e.Message, c.status, c.code)
			}
		})
	}
}

func TestWriteGolden(t *testing.T) {
	c := fixture()
	labels := c.Table("public", "labels")
	var sb strings.Builder
	add := func(name string, st *Statement, err error) {
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		fmt.Fprintf(&sb, "### %s\n%s\n\n", name, render(st))
	}
	parse := func(raw string) *Request {
		p, _ := SplitQuery(raw)
		r, err := Parse(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	body := `[{"label_name":"a","label_url":"u"}]`
	g := []InsertGroup{{Columns: []string{"label_name", "label_url"}, Body: body}}
	st, err := NewBuilder(c).Insert(labels, parse(""), g, "", MutateOpts{Return: "minimal"})
	add("insert minimal", st, err)
	st, err = NewBuilder(c).Insert(labels, parse("select=id,releases(title)"), g, "", MutateOpts{Return: "representation"})
	add("insert representation with embed", st, err)
	st, err = NewBuilder(c).Insert(labels, parse("on_conflict=label_url"), g, "merge", MutateOpts{Return: "minimal", Count: true})
	add("upsert merge with count", st, err)
	st, err = NewBuilder(c).Insert(labels, parse(""), g, "ignore", MutateOpts{Return: "headers-only"})
	add("upsert ignore headers-only", st, err)
	st, err = NewBuilder(c).Insert(labels, parse(""), []InsertGroup{{Columns: []string{"label_name", "tags"}, Body: `[{"label_name":"a"},{"label_name":"b","tags":[]}]`, Defaults: true}}, "", MutateOpts{Return: "representation"})
	add("insert missing=default", st, err)
	st, err = NewBuilder(c).Update(labels, parse("id=eq.1&select=id"), `{"label_name":"x"}`, []string{"label_name"}, MutateOpts{Return: "representation"})
	add("update", st, err)
	st, err = NewBuilder(c).Update(labels, parse("label_name=like.a*&order=id&limit=2"), `{"tags":["x"]}`, []string{"tags"}, MutateOpts{Return: "minimal"})
	add("update limited", st, err)
	st, err = NewBuilder(c).Delete(labels, parse("id=in.(1,2)"), MutateOpts{Return: "minimal", Count: true})
	add("delete with count", st, err)
	checkGolden(t, "write.golden", sb.String())
	_, err = NewBuilder(c).Insert(labels, parse(""), []InsertGroup{{Columns: []string{"nope"}, Body: "[]"}}, "", MutateOpts{Return: "minimal"})
	if e := (*apierr.Error)(nil); !errors.As(err, &e) || e.Code != "PGRST204" || e.Status != http.StatusBadRequest {
		t.Errorf("unknown insert column: %v", err)
	}
}

// aggregateCases run with aggregates enabled (DB_AGGREGATES_ENABLED), plus
// the CSV body (Accept: text/csv).
var aggregateCases = []goldenCase{
	{"count of rows", "labels", "select=count()", false},
	{"grouped sum with alias and casts", "releases", "select=label_id,total:id::bigint.sum()::text&order=label_id", false},
	{"aggregate in a to-many embed", "labels", "select=id,releases(id.max(),n:count())", false},
	{"aggregate beside a to-one embed", "releases", "select=count(),labels(label_name)", false},
	{"spread to-many as arrays", "labels", "select=id,...releases(title)&releases.order=title&releases.limit=3", false},
	{"spread to-one aggregate grouped into the parent", "releases", "select=title,...labels(n:count(),id.max())", false},
	{"spread to-many aggregates per parent row", "labels", "select=id,...releases(title,id.sum(),count())", false},
}

func TestAggregateGolden(t *testing.T) {
	c := fixture()
	var sb strings.Builder
	for _, gc := range aggregateCases {
		pairs, err := SplitQuery(gc.query)
		if err != nil {
			t.Fatal(err)
		}
		req, err := Parse(pairs, nil)
		if err != nil {
			t.Fatalf("%s: %v", gc.name, err)
		}
		b := NewBuilder(c)
		b.Aggregates = true
		st, err := b.Read(Target{Table: c.Table("public", gc.table)}, req, ReadOpts{Limit: req.Root().Limit, Offset: req.Root().Offset})
		if err != nil {
			t.Errorf("%s: %v", gc.name, err)
			continue
		}
		fmt.Fprintf(&sb, "### %s\nGET /%s?%s\n---\n%s\n\n", gc.name, gc.table, gc.query, render(st))
	}
	req, _ := Parse([]Pair{{Key: "select", Value: "id,label_name"}}, nil)
	st, err := NewBuilder(c).Read(Target{Table: c.Table("public", "labels")}, req, ReadOpts{Format: FormatCSV})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&sb, "### csv body\nGET /labels?select=id,label_name (Accept: text/csv)\n---\n%s\n\n", render(st))
	st, err = NewBuilder(c).Read(Target{Table: c.Table("public", "labels")}, req, ReadOpts{Format: FormatGeoJSON})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&sb, "### geojson body\nGET /labels?select=id,label_name (Accept: application/geo+json)\n---\n%s\n\n", render(st))
	preq, _ := Parse([]Pair{{Key: "select", Value: "id"}, {Key: "label_name", Value: "like.a*"}}, nil)
	st, err = NewBuilder(c).Read(Target{Table: c.Table("public", "labels")}, preq, ReadOpts{Count: true, Planned: true})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&sb, "### planned count\nGET /labels?select=id&label_name=like.a* (Prefer: count=planned)\n---\n%s\n-- count: %s\n\n", render(st), st.CountSQL)
	checkGolden(t, "aggregate.golden", sb.String())

	// A bad aggregate name is a parse error, whatever the setting.
	if _, err := Parse([]Pair{{Key: "select", Value: "id.median()"}}, nil); err == nil {
		t.Error("id.median() must not parse")
	} else if e := (*apierr.Error)(nil); !errors.As(err, &e) || e.Code != "PGRST100" {
		t.Errorf("id.median(): %v", err)
	}
}
