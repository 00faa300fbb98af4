package query

import (
	"net/url"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Benchmarks of the query-string parser and the SQL builder on the query
// strings supabase-js sends for the app (docs/performance.md, "Gateway
// benchmarks"). No database: the schema cache is the fixture plus the app's
// per-user tables.

const benchUser = "6f1c2f0e-8a4b-4c3d-9e2f-0a1b2c3d4e5f"

// benchCache is fixture() with the app tables the client reads and writes.
func benchCache() *schema.Cache {
	c := fixture()
	col := func(name, typ, base, cat string) *schema.Column {
		return &schema.Column{Name: name, Type: typ, Base: base, Category: cat, Nullable: true}
	}
	for _, t := range []*schema.Table{
		schema.NewTable("public", "user_listened_releases", "r", []*schema.Column{
			col("id", "bigint", "int8", "N"), col("user_id", "uuid", "uuid", "U"),
			col("release_id", "bigint", "int8", "N"), col("created_at", "timestamp with time zone", "timestamptz", "D")}),
		schema.NewTable("public", "user_follow_labels", "r", []*schema.Column{
			col("id", "bigint", "int8", "N"), col("user_id", "uuid", "uuid", "U"),
			col("label_id", "bigint", "int8", "N"), col("created_at", "timestamp with time zone", "timestamptz", "D")}),
		schema.NewTable("public", "labels_to_add", "r", []*schema.Column{
			col("id", "bigint", "int8", "N"), col("label_url", "text", "text", "S"),
			col("is_processed", "boolean", "bool", "B"), col("is_valid", "boolean", "bool", "B"),
			col("user_id", "uuid", "uuid", "U")}),
	} {
		t.PK = []string{"id"}
		c.Tables[t.QI()] = t
	}
	return c
}

// encode builds a raw query string from decoded pairs ("k=v&k=v"), percent-
// encoding each value as URLSearchParams does.
func encode(decoded string) string {
	var sb strings.Builder
	for i, p := range strings.Split(decoded, "&") {
		k, v, _ := strings.Cut(p, "=")
		if i > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(url.QueryEscape(k))
		sb.WriteByte('=')
		sb.WriteString(url.QueryEscape(v))
	}
	return sb.String()
}

// benchReads are the app's reads (supabase-wire.md §c), decoded.
var benchReads = []struct{ name, table, query string }{
	{"listened", "user_listened_releases", "select=release_id&user_id=eq." + benchUser},
	{"follows", "user_follow_labels", "select=label_id&user_id=eq." + benchUser},
	{"labels_to_add", "labels_to_add", "select=id&label_url=eq.https://label.bandcamp.com/&limit=1"},
	{"embed", "releases", "select=*,labels(label_name,label_url)"},
	{"or", "labels", "or=(label_name.ilike.%foo%,label_url.eq.x)"},
	{"in", "labels", `label_name=in.(a,"b,c","d(e)",f "g",h.i,x y)&id=in.(1,2,3)`},
	{"ilike_not_cs", "labels", "label_name=ilike.%jazz%&label_url=not.is.null&tags=cs.{a,b c}"},
	{"order_range", "labels", "select=id,label_name&order=created_at.desc,id.asc&offset=10&limit=10"},
}

func benchParse(b *testing.B, raw string) *Request {
	pairs, err := SplitQuery(raw)
	if err != nil {
		b.Fatal(err)
	}
	req, err := Parse(pairs, nil)
	if err != nil {
		b.Fatal(err)
	}
	return req
}

func benchRead(c *schema.Cache, table string, req *Request) (*Statement, error) {
	return NewBuilder(c).Read(Target{Table: c.Table("public", table)}, req,
		ReadOpts{Limit: req.Root().Limit, Offset: req.Root().Offset})
}

// BenchmarkParse is SplitQuery + Parse of a raw (percent-encoded) query.
func BenchmarkParse(b *testing.B) {
	for _, tc := range benchReads {
		raw := encode(tc.query)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				benchParse(b, raw)
			}
		})
	}
}

// BenchmarkBuild is Builder.Read on an already parsed request.
func BenchmarkBuild(b *testing.B) {
	c := benchCache()
	for _, tc := range benchReads {
		req := benchParse(b, encode(tc.query))
		first, err := benchRead(c, tc.table, req)
		if err != nil {
			b.Fatalf("%s: %v", tc.name, err)
		}
		// Building must not change the request: the loop reuses it.
		if again, err := benchRead(c, tc.table, req); err != nil || again.SQL != first.SQL {
			b.Fatalf("%s: second build differs: %v", tc.name, err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := benchRead(c, tc.table, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseBuild is the whole per-request query work of a read, and
// of the app's two writes on user_listened_releases.
func BenchmarkParseBuild(b *testing.B) {
	c := benchCache()
	for _, tc := range benchReads {
		raw := encode(tc.query)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := benchRead(c, tc.table, benchParse(b, raw)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	listened := c.Table("public", "user_listened_releases")
	b.Run("upsert", func(b *testing.B) {
		raw := "on_conflict=user_id%2Crelease_id"
		body := `{"user_id":"` + benchUser + `","release_id":42}`
		b.ReportAllocs()
		for b.Loop() {
			req := benchParse(b, raw)
			g := []InsertGroup{{Columns: []string{"user_id", "release_id"}, Body: body}}
			if _, err := NewBuilder(c).Insert(listened, req, g, "merge", MutateOpts{Return: "minimal"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("delete", func(b *testing.B) {
		raw := encode("user_id=eq." + benchUser + "&release_id=eq.42")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewBuilder(c).Delete(listened, benchParse(b, raw), MutateOpts{Return: "minimal"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
