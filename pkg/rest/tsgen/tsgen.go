// Package tsgen writes the TypeScript `Database` type that supabase-js
// takes as its generic (createClient<Database>), from the gateway's own
// schema cache: the shape `supabase gen types typescript` produces, so a
// frontend typed against Labelbase is typed the same way on hosted
// Supabase, and a table, column or RPC typo fails the type check.
//
// It is generated here rather than by Supabase's CLI because that CLI
// needs Docker or a hosted project; the schema cache already knows every
// table, column, key and function the frontend can reach.
package tsgen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Generate renders the Database type for the given schemas of c.
func Generate(c *schema.Cache, schemas []string) string {
	var b strings.Builder
	b.WriteString(`// Generated from the database schema by pkg/rest/tsgen: do not edit.
// Regenerate with: go tool task web:types

export type Json = string | number | boolean | null | { [key: string]: Json | undefined } | Json[]

export type Database = {
`)
	for _, s := range schemas {
		fmt.Fprintf(&b, "  %s: {\n", key(s))
		writeRelations(&b, c, s, false)
		writeRelations(&b, c, s, true)
		writeFunctions(&b, c, s)
		b.WriteString("    Enums: { [_ in never]: never }\n    CompositeTypes: { [_ in never]: never }\n  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func writeRelations(b *strings.Builder, c *schema.Cache, s string, views bool) {
	title := "Tables"
	if views {
		title = "Views"
	}
	var names []string
	for _, n := range c.TableNames(s) {
		if isView(c.Table(s, n)) == views {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		fmt.Fprintf(b, "    %s: { [_ in never]: never }\n", title)
		return
	}
	fmt.Fprintf(b, "    %s: {\n", title)
	for _, n := range names {
		t := c.Table(s, n)
		fmt.Fprintf(b, "      %s: {\n", key(n))
		writeRow(b, "Row", t.Columns, func(*schema.Column) bool { return false })
		if !views {
			writeRow(b, "Insert", t.Columns, func(col *schema.Column) bool {
				return col.Nullable || col.Default != "" || col.Identity || col.Generated
			})
			writeRow(b, "Update", t.Columns, func(*schema.Column) bool { return true })
		}
		writeRelationships(b, t)
		b.WriteString("      }\n")
	}
	b.WriteString("    }\n")
}

func isView(t *schema.Table) bool { return t.Kind == "v" || t.Kind == "m" }

func writeRow(b *strings.Builder, name string, cols []*schema.Column, optional func(*schema.Column) bool) {
	fmt.Fprintf(b, "        %s: {\n", name)
	for _, col := range cols {
		if name != "Row" && col.Generated {
			continue // cannot be written
		}
		q := ""
		if optional(col) {
			q = "?"
		}
		t := columnType(col)
		if col.Nullable {
			t += " | null"
		}
		fmt.Fprintf(b, "          %s%s: %s\n", key(col.Name), q, t)
	}
	b.WriteString("        }\n")
}

func writeRelationships(b *strings.Builder, t *schema.Table) {
	if len(t.FKs) == 0 {
		b.WriteString("        Relationships: []\n")
		return
	}
	fks := slices.Clone(t.FKs)
	sort.Slice(fks, func(i, j int) bool { return fks[i].Name < fks[j].Name })
	b.WriteString("        Relationships: [\n")
	for _, fk := range fks {
		fmt.Fprintf(b, "          {\n            foreignKeyName: %q\n            columns: %s\n            isOneToOne: %t\n            referencedRelation: %q\n            referencedColumns: %s\n          },\n",
			fk.Name, strList(fk.FromCols), fk.OneToOne, fk.To.Name, strList(fk.ToCols))
	}
	b.WriteString("        ]\n")
}

func writeFunctions(b *strings.Builder, c *schema.Cache, s string) {
	var names []string
	for _, n := range c.FuncNames(s) {
		if slices.ContainsFunc(c.Funcs[schema.QI{Schema: s, Name: n}], callable) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		b.WriteString("    Functions: { [_ in never]: never }\n")
		return
	}
	b.WriteString("    Functions: {\n")
	for _, n := range names {
		var sigs []string
		for _, f := range c.Funcs[schema.QI{Schema: s, Name: n}] {
			if callable(f) {
				sigs = append(sigs, "{ Args: "+args(f)+"; Returns: "+returns(c, f)+" }")
			}
		}
		sort.Strings(sigs) // overloads in a stable order
		fmt.Fprintf(b, "      %s:\n        | %s\n", key(n), strings.Join(sigs, "\n        | "))
	}
	b.WriteString("    }\n")
}

// callable leaves out what no client can call through /rest/v1/rpc.
func callable(f *schema.Func) bool {
	return f.RetType != "trigger" && f.RetType != "event_trigger"
}

func args(f *schema.Func) string {
	if len(f.Params) == 0 {
		return "Record<PropertyKey, never>"
	}
	parts := make([]string, 0, len(f.Params))
	for _, p := range f.Params {
		q := ""
		if p.HasDefault {
			q = "?"
		}
		parts = append(parts, fmt.Sprintf("%s%s: %s", key(p.Name), q, typeName(p.Type)))
	}
	return "{ " + strings.Join(parts, "; ") + " }"
}

func returns(c *schema.Cache, f *schema.Func) string {
	var t string
	switch f.RetKind {
	case "void":
		return "undefined"
	case "composite":
		// A table's row type keeps the table's nullability; the columns of
		// RETURNS TABLE (...) carry none, and are typed as declared, as
		// Supabase's generator does.
		cols, nullable := f.RetCols, false
		if f.RetRel != nil {
			cols, nullable = c.Tables[*f.RetRel].Columns, true
		}
		parts := make([]string, 0, len(cols))
		for _, col := range cols {
			t := columnType(col)
			if nullable && col.Nullable {
				t += " | null"
			}
			parts = append(parts, fmt.Sprintf("%s: %s", key(col.Name), t))
		}
		t = "{ " + strings.Join(parts, "; ") + " }"
	default:
		t = typeName(f.RetType)
	}
	if f.RetSet {
		return t + "[]"
	}
	return t
}

// columnType maps a column by its type name, falling back on PostgreSQL's
// type category for what the name table does not know (enums, domains
// over unknown bases, user types).
func columnType(col *schema.Column) string {
	if t := typeName(col.Type); t != "unknown" {
		return t
	}
	switch col.Category {
	case "N":
		return "number"
	case "B":
		return "boolean"
	case "A":
		return "unknown[]"
	case "S", "D", "E", "T", "I", "R", "V":
		return "string"
	}
	return "unknown"
}

// typeName maps format_type's rendering ("text[]", "character
// varying(20)", "timestamp with time zone") to what PostgREST's JSON
// carries.
func typeName(t string) string {
	if base, ok := strings.CutSuffix(t, "[]"); ok {
		inner := typeName(base)
		if strings.Contains(inner, " ") {
			inner = "(" + inner + ")"
		}
		return inner + "[]"
	}
	if i := strings.IndexByte(t, '('); i > 0 {
		t = t[:i] + t[strings.IndexByte(t, ')')+1:]
	}
	t = strings.TrimPrefix(t, "pg_catalog.")
	switch t {
	case "smallint", "integer", "bigint", "real", "double precision", "numeric", "oid":
		return "number"
	case "boolean":
		return "boolean"
	case "json", "jsonb":
		return "Json"
	case "text", "character varying", "character", "\"char\"", "name", "citext", "uuid", "date",
		"time without time zone", "time with time zone", "timestamp without time zone",
		"timestamp with time zone", "interval", "bytea", "inet", "cidr", "macaddr", "tsvector",
		"int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange", "money":
		return "string"
	case "void":
		return "undefined"
	case "record":
		return "Record<string, unknown>"
	}
	return "unknown"
}

// key quotes a property name when it is not a plain identifier.
func key(name string) string {
	for i, r := range name {
		if !(r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return fmt.Sprintf("%q", name)
		}
	}
	if name == "" {
		return `""`
	}
	return name
}

func strList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
