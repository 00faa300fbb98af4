package tsgen_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/rest/schema"
	"github.com/labelbase/labelbase/pkg/rest/tsgen"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var update = flag.Bool("update", false, "rewrite frontend/src/types/database.ts")

// The frontend's Database type must be what the migrations produce today:
// a migration that renames a column or changes an RPC's arguments fails
// here until the file is regenerated (go tool task web:types), and then
// fails the frontend's type check wherever the code disagrees.
func TestFrontendTypesAreCurrent(t *testing.T) {
	db := pgtest.New(t)
	c, err := schema.Load(context.Background(), db.Pool, []string{"public"})
	if err != nil {
		t.Fatal(err)
	}
	got := tsgen.Generate(c, []string{"public"})
	path := filepath.Join("..", "..", "..", "frontend", "src", "types", "database.ts")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (generate it with: go tool task web:types)", err)
	}
	if string(want) != got {
		t.Fatalf("%s is out of date with the migrations; run: go tool task web:types", path)
	}
}

// TestShapes checks the mapping on a schema of its own: optional Insert
// fields, nullability, arrays, keys, overloads, set-returning and void
// functions, defaults.
func TestShapes(t *testing.T) {
	db := pgtest.NewEmpty(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `
		CREATE SCHEMA s;
		CREATE TABLE s.authors (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name text NOT NULL, "Display Name" varchar(40));
		CREATE TABLE s.books (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), author_id bigint NOT NULL REFERENCES s.authors,
			tags text[] NOT NULL DEFAULT '{}', meta jsonb, price numeric(8,2), published timestamptz,
			slug text GENERATED ALWAYS AS (lower(id::text)) STORED);
		CREATE VIEW s.book_titles AS SELECT id, author_id FROM s.books;
		CREATE FUNCTION s.books_by(author bigint, lim int DEFAULT 10) RETURNS SETOF s.books LANGUAGE sql AS 'SELECT * FROM s.books LIMIT lim';
		CREATE FUNCTION s.total() RETURNS bigint LANGUAGE sql AS 'SELECT 1::bigint';
		CREATE FUNCTION s.total(x text) RETURNS bigint LANGUAGE sql AS 'SELECT 2::bigint';
		CREATE FUNCTION s.noop() RETURNS void LANGUAGE sql AS '';
		CREATE FUNCTION s.pairs() RETURNS TABLE (k text, v int[]) LANGUAGE sql AS 'SELECT NULL::text, NULL::int[]';
		CREATE FUNCTION s.trig() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
	`); err != nil {
		t.Fatal(err)
	}
	c, err := schema.Load(ctx, db.Pool, []string{"s"})
	if err != nil {
		t.Fatal(err)
	}
	got := tsgen.Generate(c, []string{"s"})
	for _, want := range []string{
		"        Row: {\n          id: number\n          name: string\n          \"Display Name\": string | null\n        }",
		"        Insert: {\n          id?: number\n          name: string\n          \"Display Name\"?: string | null\n        }",
		"          author_id: number\n          tags?: string[]\n          meta?: Json | null\n          price?: number | null",
		"          slug: string | null\n", // in Row
		`foreignKeyName: "books_author_id_fkey"`,
		`referencedRelation: "authors"`,
		"    Views: {\n      book_titles: {\n        Row: {\n          id: string | null\n          author_id: number | null\n        }\n        Relationships: [",
		"      books_by:\n        | { Args: { author: number; lim?: number }; Returns: { id: string; author_id: number; tags: string[]; meta: Json | null;",
		"      total:\n        | { Args: Record<PropertyKey, never>; Returns: number }\n        | { Args: { x: string }; Returns: number }",
		"      noop:\n        | { Args: Record<PropertyKey, never>; Returns: undefined }",
		"      pairs:\n        | { Args: Record<PropertyKey, never>; Returns: { k: string; v: number[] }[] }",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing:\n%s\n--- in:\n%s", want, got)
		}
	}
	insert := got[strings.Index(got, "      books: {"):]
	insert = insert[strings.Index(insert, "Insert"):strings.Index(insert, "Update")]
	if strings.Contains(insert, "slug") {
		t.Errorf("a generated column is writable in Insert:\n%s", insert)
	}
	if strings.Contains(got, "trig") {
		t.Error("a trigger function is listed as callable")
	}
}
