package query

import (
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Function calls: /rpc/<fn> as one statement.
// Call is a resolved function call.
type Call struct {
	Func *schema.Func
	// Body is a JSON object holding the arguments (or, with SingleJSON,
	// the whole request body).
	Body string
	// Args are the parameters given, in the function's order.
	Args []string
	// SingleJSON passes Body whole to the single unnamed parameter (the
	// name is historical: the parameter may be json, jsonb, text, xml or
	// bytea).
	SingleJSON bool
	// Hex says Body is the hex of a bytea body.
	Hex bool
}

// RPC builds a function call. Set-returning and composite results become
// a CTE that select, filters, order and limit apply to like a table.
func (b *Builder) RPC(c Call, req *Request, o ReadOpts) (*Statement, error) {
	f := c.Func
	var ctes []string
	from := ""
	var call string
	fn := qiFunc(f)
	switch {
	case c.SingleJSON && c.Hex:
		call = fn + "(pg_catalog.decode(" + b.bind(c.Body) + ", 'hex'))"
	case c.SingleJSON:
		call = fn + "(" + b.bind(c.Body) + "::" + f.Params[0].Type + ")"
	case len(c.Args) > 0:
		var defs, named []string
		for _, p := range f.Params {
			if !contains(c.Args, p.Name) {
				continue
			}
			defs = append(defs, q(p.Name)+" "+p.Type)
			v := ""
			if p.Variadic {
				v = "VARIADIC "
			}
			named = append(named, v+q(p.Name)+" := pgrst_args."+q(p.Name))
		}
		ctes = append(ctes, "pgrst_args AS (SELECT * FROM json_to_record("+b.bind(c.Body)+"::json) AS pgrst_r("+strings.Join(defs, ", ")+"))")
		from = "pgrst_args, "
		call = fn + "(" + strings.Join(named, ", ") + ")"
	default:
		call = fn + "()"
	}
	switch {
	case f.RetKind == "composite":
		t := schema.NewTable(f.Schema, f.Name, "f", f.RetCols)
		if f.RetRel != nil {
			if rel := b.Cache.Tables[*f.RetRel]; rel != nil {
				t.FKs, t.Refs = rel.FKs, rel.Refs
				t.RowType = f.RetRel
			}
		}
		ctes = append(ctes, "pgrst_src AS (SELECT pgrst_f.* FROM "+from+call+" AS pgrst_f)")
		return b.Read(Target{Table: t, From: "pgrst_src", Alias: f.Name, CTEs: ctes}, req, o)
	case f.RetSet:
		col := &schema.Column{Name: f.Name, Type: f.RetType, Nullable: true}
		t := schema.NewTable(f.Schema, f.Name, "f", []*schema.Column{col})
		ctes = append(ctes, "pgrst_src AS (SELECT pgrst_f.pgrst_v AS "+q(f.Name)+" FROM "+from+call+" AS pgrst_f(pgrst_v))")
		return b.Read(Target{Table: t, From: "pgrst_src", Alias: f.Name, CTEs: ctes, ScalarColumn: f.Name}, req, o)
	}
	// Scalar or void: the body is the bare JSON value.
	body := "to_json(pgrst_f.pgrst_v)::text"
	if f.RetKind == "void" || o.Head {
		body = "''"
	}
	return b.statement(withClause(ctes) + "SELECT NULL::text, '1', " + body + ", " + gucs + " FROM " + from + call + " AS pgrst_f(pgrst_v)"), nil
}

func qiFunc(f *schema.Func) string {
	return qi(&schema.Table{Schema: f.Schema, Name: f.Name})
}
