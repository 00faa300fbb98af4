package query

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Target is what a read selects from: a table, or a CTE holding a
// function's result.
type Target struct {
	Table *schema.Table
	// From is the FROM item's SQL; empty means the table itself.
	From  string
	Alias string
	CTEs  []string
	// ScalarColumn, for set-returning scalar functions, makes the body an
	// array of that column's values instead of objects.
	ScalarColumn string
}

// ReadOpts shape a read's response.
type ReadOpts struct {
	Count      bool
	Head       bool
	StripNulls bool
	// Limit and Offset are the root's effective page (query and Range
	// header combined).
	Limit, Offset *int64
}

func (b *Builder) statement(sql string) *Statement {
	return &Statement{SQL: sql, Args: b.args}
}

const gucs = "nullif(current_setting('response.headers', true), ''), nullif(current_setting('response.status', true), '')"

func wrap(ctes []string, total, body, inner string) string {
	with := ""
	if len(ctes) > 0 {
		with = "WITH " + strings.Join(ctes, ", ") + " "
	}
	return with + "SELECT " + total + "::text, pg_catalog.count(*)::text, " + body + ", " + gucs + " FROM (" + inner + ") pgrst_t"
}

func bodyExpr(head, strip bool, scalarCol string) string {
	switch {
	case head:
		return "''"
	case scalarCol != "":
		return "coalesce(json_agg(pgrst_t." + q(scalarCol) + "), '[]')::text"
	case strip:
		return "json_strip_nulls(coalesce(json_agg(pgrst_t), '[]'))::text"
	default:
		return "coalesce(json_agg(pgrst_t), '[]')::text"
	}
}

// Read builds a GET/HEAD over a table or function result: the page, the
// optional exact count and the JSON body, in one statement.
func (b *Builder) Read(tg Target, req *Request, o ReadOpts) (*Statement, error) {
	if tg.Alias == "" {
		tg.Alias = tg.Table.Name
	}
	if tg.From == "" {
		tg.From = qi(tg.Table)
	}
	sel := req.Select
	if tg.ScalarColumn != "" {
		sel = []SelectItem{{Field: &Field{Name: tg.ScalarColumn}}}
	}
	root, err := b.resolve(tg.Table, tg.Alias, sel, req, nil)
	if err != nil {
		return nil, err
	}
	if err := checkNodes(root, req); err != nil {
		return nil, err
	}
	selSQL, err := b.selectSQL(root)
	if err != nil {
		return nil, err
	}
	where, err := b.whereParts(root)
	if err != nil {
		return nil, err
	}
	ord, err := b.orderSQL(root)
	if err != nil {
		return nil, err
	}
	whereSQL := ""
	if len(where) > 0 {
		whereSQL = " WHERE " + strings.Join(where, " AND ")
	}
	from := " FROM " + tg.From + " AS " + q(tg.Alias)
	inner := "SELECT " + selSQL + from + whereSQL + ord + pageSQL(o.Limit, o.Offset)
	total := "NULL"
	if o.Count {
		total = "(SELECT pg_catalog.count(*) FROM " + tg.From + " AS " + q(tg.Alias) + whereSQL + ")"
	}
	return b.statement(wrap(tg.CTEs, total, bodyExpr(o.Head, o.StripNulls, tg.ScalarColumn), inner)), nil
}

// TableNotFound is PGRST205 with a hint naming the closest table.
func TableNotFound(c *schema.Cache, sch, name string) *apierr.Error {
	e := apierr.New(http.StatusNotFound, "PGRST205", "Could not find the table '%s.%s' in the schema cache", sch, name)
	if s := schema.Closest(name, c.TableNames(sch)); s != "" {
		e.Hint = fmt.Sprintf("Perhaps you meant the table '%s.%s'", sch, s)
	}
	return e
}

// ColumnNotInCache is PGRST204, for columns named by a write.
func ColumnNotInCache(table, col string) *apierr.Error {
	return apierr.New(http.StatusBadRequest, "PGRST204", "Could not find the '%s' column of '%s' in the schema cache", col, table)
}

// MutateOpts shape a write's response.
type MutateOpts struct {
	// Return is "minimal", "headers-only" or "representation".
	Return     string
	Count      bool
	StripNulls bool
}

// InsertGroup is a set of rows that name the same columns.
type InsertGroup struct {
	Columns []string
	// Body is a JSON array of objects.
	Body string
}

// returning picks the RETURNING list a write needs: the columns the
// select reads (plus join columns of embeds), the primary key for a
// Location header, or a bare 1 to count rows.
func (b *Builder) returning(root *level, o MutateOpts) (string, string) {
	alias := q(root.alias)
	switch {
	case o.Return == "representation":
		cols := map[string]bool{}
		var list []string
		add := func(c string) {
			if !cols[c] {
				cols[c] = true
				list = append(list, alias+"."+q(c))
			}
		}
		for _, it := range root.items {
			if it.Star {
				return alias + ".*", ""
			}
			if it.Field != nil {
				add(it.Field.Name)
			}
		}
		for _, e := range root.embeds {
			if e.forward {
				for _, c := range e.fk.FromCols {
					add(c)
				}
			} else {
				for _, c := range e.fk.ToCols {
					add(c)
				}
			}
		}
		if len(list) == 0 {
			return "1", ""
		}
		return strings.Join(list, ", "), ""
	case o.Return == "headers-only" && len(root.t.PK) > 0:
		var list []string
		for _, c := range root.t.PK {
			list = append(list, alias+"."+q(c))
		}
		return strings.Join(list, ", "), "pk"
	case o.Count:
		return "1", "count"
	}
	return "", ""
}

func (b *Builder) finishWrite(root *level, req *Request, ctes []string, ret, mode string, o MutateOpts) (*Statement, error) {
	alias := q(root.alias)
	switch {
	case o.Return == "representation":
		if err := checkNodes(root, req); err != nil {
			return nil, err
		}
		sel, err := b.selectSQL(root)
		if err != nil {
			return nil, err
		}
		inner := "SELECT " + sel + " FROM pgrst_mut AS " + alias
		return b.statement(wrap(ctes, "NULL", bodyExpr(false, o.StripNulls, ""), inner)), nil
	case mode == "pk":
		var cols []string
		for _, c := range root.t.PK {
			cols = append(cols, alias+"."+q(c))
		}
		inner := "SELECT " + strings.Join(cols, ", ") + " FROM pgrst_mut AS " + alias
		return b.statement(wrap(ctes, "NULL", bodyExpr(false, false, ""), inner)), nil
	case ret != "":
		return b.statement(wrap(ctes, "NULL", "''", "SELECT 1 FROM pgrst_mut")), nil
	default:
		return b.statement(wrap(ctes, "NULL", "''", "SELECT 1 WHERE false")), nil
	}
}

// Insert builds POST: one INSERT per group of rows naming the same columns
// (one group unless Prefer: missing=default), optionally an upsert.
func (b *Builder) Insert(t *schema.Table, req *Request, groups []InsertGroup, resolution string, o MutateOpts) (*Statement, error) {
	root, err := b.resolve(t, t.Name, req.Select, req, nil)
	if err != nil {
		return nil, err
	}
	ret, mode := b.returning(root, o)
	conflict := ""
	if resolution != "" {
		target := req.OnConflict
		if target == nil {
			target = t.PK
		}
		for _, c := range target {
			if t.Column(c) == nil {
				return nil, ColumnNotFound(t.Name, c, t.ColumnNames(), schema.Closest)
			}
		}
		var qt []string
		for _, c := range target {
			qt = append(qt, q(c))
		}
		conflict = " ON CONFLICT"
		if len(qt) > 0 {
			conflict += " (" + strings.Join(qt, ", ") + ")"
		}
	}
	var ctes []string
	var names []string
	for i, g := range groups {
		var cols []string
		for _, c := range g.Columns {
			if t.Column(c) == nil {
				return nil, ColumnNotInCache(t.Name, c)
			}
			cols = append(cols, q(c))
		}
		ins := "INSERT INTO " + qi(t) + " AS " + q(t.Name)
		if len(cols) > 0 {
			ins += " (" + strings.Join(cols, ", ") + ")"
		}
		ins += " SELECT " + strings.Join(cols, ", ") + " FROM json_populate_recordset(NULL::" + qi(t) + ", " + b.bind(g.Body) + "::json)"
		if conflict != "" {
			ins += conflict
			if resolution == "merge" && len(cols) > 0 && strings.Contains(conflict, "(") {
				var sets []string
				for _, c := range cols {
					sets = append(sets, c+" = EXCLUDED."+c)
				}
				ins += " DO UPDATE SET " + strings.Join(sets, ", ")
			} else {
				ins += " DO NOTHING"
			}
		}
		if ret != "" {
			ins += " RETURNING " + ret
		}
		name := "pgrst_mut"
		if len(groups) > 1 {
			name = fmt.Sprintf("pgrst_ins_%d", i+1)
			names = append(names, "SELECT * FROM "+name)
		}
		ctes = append(ctes, name+" AS ("+ins+")")
	}
	if len(groups) > 1 && ret != "" {
		ctes = append(ctes, "pgrst_mut AS ("+strings.Join(names, " UNION ALL ")+")")
	}
	return b.finishWrite(root, req, ctes, ret, mode, o)
}

func (b *Builder) limitedWhere(root *level, where []string) ([]string, error) {
	n := root.node
	if n.Limit == nil && (n.Offset == nil || *n.Offset == 0) {
		return where, nil
	}
	ord, err := b.orderSQL(root)
	if err != nil {
		return nil, err
	}
	w := ""
	if len(where) > 0 {
		w = " WHERE " + strings.Join(where, " AND ")
	}
	sub := "SELECT " + q(root.alias) + ".ctid FROM " + qi(root.t) + " AS " + q(root.alias) + w + ord + pageSQL(n.Limit, n.Offset)
	return append(where, q(root.alias)+".ctid = ANY(ARRAY("+sub+"))"), nil
}

// Update builds PATCH: the body's keys are set on every row the filters
// (and row-level security) let through.
func (b *Builder) Update(t *schema.Table, req *Request, body string, keys []string, o MutateOpts) (*Statement, error) {
	root, err := b.resolve(t, t.Name, req.Select, req, nil)
	if err != nil {
		return nil, err
	}
	ret, mode := b.returning(root, o)
	var sets []string
	for _, k := range keys {
		if t.Column(k) == nil {
			return nil, ColumnNotInCache(t.Name, k)
		}
		sets = append(sets, q(k)+" = pgrst_body."+q(k))
	}
	where, err := b.whereParts(root)
	if err != nil {
		return nil, err
	}
	if where, err = b.limitedWhere(root, where); err != nil {
		return nil, err
	}
	upd := "UPDATE " + qi(t) + " AS " + q(t.Name) + " SET " + strings.Join(sets, ", ") +
		" FROM (SELECT * FROM json_populate_record(NULL::" + qi(t) + ", " + b.bind(body) + "::json)) pgrst_body"
	if len(where) > 0 {
		upd += " WHERE " + strings.Join(where, " AND ")
	}
	if ret != "" {
		upd += " RETURNING " + ret
	}
	return b.finishWrite(root, req, []string{"pgrst_mut AS (" + upd + ")"}, ret, mode, o)
}

// Delete builds DELETE.
func (b *Builder) Delete(t *schema.Table, req *Request, o MutateOpts) (*Statement, error) {
	root, err := b.resolve(t, t.Name, req.Select, req, nil)
	if err != nil {
		return nil, err
	}
	ret, mode := b.returning(root, o)
	where, err := b.whereParts(root)
	if err != nil {
		return nil, err
	}
	if where, err = b.limitedWhere(root, where); err != nil {
		return nil, err
	}
	del := "DELETE FROM " + qi(t) + " AS " + q(t.Name)
	if len(where) > 0 {
		del += " WHERE " + strings.Join(where, " AND ")
	}
	if ret != "" {
		del += " RETURNING " + ret
	}
	return b.finishWrite(root, req, []string{"pgrst_mut AS (" + del + ")"}, ret, mode, o)
}

// Call is a resolved function call.
type Call struct {
	Func *schema.Func
	// Body is a JSON object holding the arguments (or, with SingleJSON,
	// the whole request body).
	Body string
	// Args are the parameters given, in the function's order.
	Args       []string
	SingleJSON bool
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
	with := ""
	if len(ctes) > 0 {
		with = "WITH " + strings.Join(ctes, ", ") + " "
	}
	return b.statement(with + "SELECT NULL::text, '1', " + body + ", " + gucs + " FROM " + from + call + " AS pgrst_f(pgrst_v)"), nil
}

func qiFunc(f *schema.Func) string {
	return qi(&schema.Table{Schema: f.Schema, Name: f.Name})
}

// ResolveFunc picks the overload of schema.name whose parameter names fit
// the given argument keys. For GET, keys that are not parameters of the
// chosen function are filters, so it prefers the overload that uses most
// keys. post says whether a single unnamed json parameter may take the
// whole body.
func ResolveFunc(c *schema.Cache, sch, name string, keys []string, post, bodyIsObject bool) (*schema.Func, bool, error) {
	overloads := c.Funcs[schema.QI{Schema: sch, Name: name}]
	var best *schema.Func
	bestUsed, ties := -1, 0
	var single *schema.Func
	for _, f := range overloads {
		if len(f.Params) == 1 && f.Params[0].Name == "" && (f.Params[0].Type == "json" || f.Params[0].Type == "jsonb") {
			single = f
			continue
		}
		names := map[string]bool{}
		ok := true
		for _, p := range f.Params {
			if p.Name == "" {
				ok = false
				break
			}
			names[p.Name] = true
		}
		if !ok {
			continue
		}
		used := 0
		for _, k := range keys {
			if names[k] {
				used++
			} else if post {
				ok = false
			}
		}
		given := map[string]bool{}
		for _, k := range keys {
			given[k] = true
		}
		for _, p := range f.Params {
			if !p.HasDefault && !given[p.Name] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		switch {
		case used > bestUsed:
			best, bestUsed, ties = f, used, 1
		case used == bestUsed:
			ties++
		}
	}
	if best != nil && ties > 1 {
		var sigs []string
		for _, f := range overloads {
			var ps []string
			for _, p := range f.Params {
				ps = append(ps, p.Name+" => "+p.Type)
			}
			sigs = append(sigs, f.Schema+"."+f.Name+"("+strings.Join(ps, ", ")+")")
		}
		e := apierr.New(http.StatusMultipleChoices, "PGRST203", "Could not choose the best candidate function between: %s", strings.Join(sigs, ", "))
		e.Hint = "Try renaming the parameters or the function itself in the database so function overloading can be resolved"
		return nil, false, e
	}
	if best != nil {
		return best, false, nil
	}
	if single != nil && (post || len(keys) == 0) && (bodyIsObject || post) {
		return single, post, nil
	}
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	fq := sch + "." + name
	msg := fq + "(" + strings.Join(sorted, ", ") + ")"
	det := " with parameter"
	if len(sorted) > 1 {
		det += "s"
	}
	det += " " + strings.Join(sorted, ", ")
	if len(sorted) == 0 {
		msg = fq + " without parameters"
		det = " without parameters"
	}
	if post {
		det += " or with a single unnamed json/jsonb parameter"
	}
	e := apierr.New(http.StatusNotFound, "PGRST202", "Could not find the function %s in the schema cache", msg)
	e.Details = "Searched for the function " + fq + det + ", but no matches were found in the schema cache."
	if len(overloads) == 0 {
		if s := schema.Closest(name, c.FuncNames(sch)); s != "" {
			e.Hint = "Perhaps you meant to call the function " + sch + "." + s
		}
	} else {
		var best string
		bestScore := -1
		for _, f := range overloads {
			var ps []string
			score := 0
			for _, p := range f.Params {
				ps = append(ps, p.Name)
				if contains(sorted, p.Name) {
					score++
				}
			}
			sort.Strings(ps)
			if score > bestScore {
				best, bestScore = sch+"."+name+"("+strings.Join(ps, ", ")+")", score
			}
		}
		e.Hint = "Perhaps you meant to call the function " + best
	}
	return nil, false, e
}
