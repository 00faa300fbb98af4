package query

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Writes: POST (insert and upsert), PATCH and DELETE, each one statement
// whose mutation is a CTE the response is read from.
// MutateOpts shape a write's response.
type MutateOpts struct {
	// Return is "minimal", "headers-only" or "representation".
	Return     string
	Count      bool
	StripNulls bool
	// Format is the representation's body format.
	Format Format
}

// InsertGroup is a set of rows that name the same columns.
type InsertGroup struct {
	Columns []string
	// Body is a JSON array of objects.
	Body string
	// Defaults gives columns a row leaves out their defaults
	// (Prefer: missing=default) instead of NULL.
	Defaults bool
	// Row is the body's one object when it has one row: Insert then binds
	// its values in a VALUES list where it can (values.go).
	Row map[string]json.RawMessage
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
			if e.fn != nil {
				// A computed relationship needs the whole row.
				return alias + ".*", ""
			}
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
	}
	// Even when nothing is returned, the rows are counted: the count is
	// the response's Content-Range (PostgREST answers 0-0/* to a PATCH of
	// one row), and reading the mutation makes it run before the response
	// GUCs are read, so a trigger's response.headers reach the response.
	return "1", "count"
}

// finishWrite reads the response from the mutation CTE pgrst_mut. total is
// the statement's first column: NULL, or for a merging upsert the number of
// rows inserted rather than updated.
func (b *Builder) finishWrite(root *level, req *Request, ctes []string, ret, mode, total string, o MutateOpts) (*Statement, error) {
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
		joins, err := b.embedJoins(root)
		if err != nil {
			return nil, err
		}
		inner := "SELECT " + sel + " FROM pgrst_mut AS " + alias + joins
		return b.statement(wrap(ctes, total, bodyExpr(false, o.StripNulls, o.Format, ""), inner)), nil
	case mode == "pk":
		var cols []string
		for _, c := range root.t.PK {
			cols = append(cols, alias+"."+q(c))
		}
		inner := "SELECT " + strings.Join(cols, ", ") + " FROM pgrst_mut AS " + alias
		return b.statement(wrap(ctes, total, bodyExpr(false, false, FormatJSON, ""), inner)), nil
	case ret != "":
		return b.statement(wrap(ctes, total, "''", "SELECT 1 FROM pgrst_mut")), nil
	default:
		return b.statement(wrap(ctes, total, "''", "SELECT 1 WHERE false")), nil
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
	conflict, err := onConflict(t, req, resolution)
	if err != nil {
		return nil, err
	}
	total := "NULL"
	if resolution == "merge" && strings.Contains(conflict, "(") {
		// PostgREST answers 200 rather than 201 when a merging upsert
		// inserted nothing: every returned row says whether it was inserted
		// (xmax is 0 only for a fresh row), and the statement counts them.
		marker := "(" + q(t.Name) + ".xmax = 0) AS pgrst_inserted"
		if ret == "" {
			ret = marker
		} else {
			ret += ", " + marker
		}
		root.expandStar = true
		total = "(SELECT pg_catalog.count(*) FROM pgrst_mut WHERE pgrst_mut.pgrst_inserted)"
	}
	var ctes []string
	var names []string
	for i, g := range groups {
		ins, err := b.insertGroup(t, g, conflict, resolution, ret)
		if err != nil {
			return nil, err
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
	return b.finishWrite(root, req, ctes, ret, mode, total, o)
}

// onConflict is an upsert's " ON CONFLICT (cols)": on_conflict= or the
// primary key; "" without a resolution.
func onConflict(t *schema.Table, req *Request, resolution string) (string, error) {
	if resolution == "" {
		return "", nil
	}
	target := req.OnConflict
	if target == nil {
		target = t.PK
	}
	var qt []string
	for _, c := range target {
		if t.Column(c) == nil {
			return "", ColumnNotFound(t.Name, c, t.ColumnNames())
		}
		qt = append(qt, q(c))
	}
	if len(qt) == 0 {
		return " ON CONFLICT", nil
	}
	return " ON CONFLICT (" + strings.Join(qt, ", ") + ")", nil
}

// insertGroup is the INSERT of one group of rows naming the same columns,
// with the upsert's conflict action and the RETURNING list.
func (b *Builder) insertGroup(t *schema.Table, g InsertGroup, conflict, resolution, ret string) (string, error) {
	var cols []string
	for _, c := range g.Columns {
		if t.Column(c) == nil {
			return "", ColumnNotInCache(t.Name, c)
		}
		cols = append(cols, q(c))
	}
	ins := "INSERT INTO " + qi(t) + " AS " + q(t.Name)
	if len(cols) > 0 {
		ins += " (" + strings.Join(cols, ", ") + ")"
	}
	if vals, ok := b.valuesRow(t, g); ok {
		ins += " " + vals
	} else {
		ins += " SELECT " + strings.Join(cols, ", ") + " FROM " + b.insertSource(t, g)
	}
	switch {
	case conflict == "":
	case resolution == "merge" && len(cols) > 0 && strings.Contains(conflict, "("):
		var sets []string
		for _, c := range cols {
			sets = append(sets, c+" = EXCLUDED."+c)
		}
		ins += conflict + " DO UPDATE SET " + strings.Join(sets, ", ")
	default:
		ins += conflict + " DO NOTHING"
	}
	if ret != "" {
		ins += " RETURNING " + ret
	}
	return ins, nil
}

// insertSource is the rows an INSERT reads from the body. With defaults,
// each element is laid over an object of the listed columns' defaults
// before it becomes a row, as PostgREST does: the defaults are evaluated
// for every element, in body order, whether or not it names the column.
func (b *Builder) insertSource(t *schema.Table, g InsertGroup) string {
	if !g.Defaults {
		return "json_populate_recordset(NULL::" + qi(t) + ", " + b.bind(g.Body) + "::json)"
	}
	var defs []string
	for _, c := range g.Columns {
		if col := t.Column(c); col != nil && col.InsertDefault != "" {
			// The expression is the catalog's own (pg_get_expr), written by
			// the schema's owner; the key is bound like any value.
			defs = append(defs, b.bind(c)+"::text, "+col.InsertDefault)
		}
	}
	return "jsonb_populate_recordset(NULL::" + qi(t) + ", (SELECT jsonb_agg(jsonb_build_object(" + strings.Join(defs, ", ") +
		") || pgrst_elem.value ORDER BY pgrst_elem.ordinality) FROM jsonb_array_elements(" + b.bind(g.Body) +
		"::jsonb) WITH ORDINALITY AS pgrst_elem))"
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
	return b.finishWrite(root, req, []string{"pgrst_mut AS (" + upd + ")"}, ret, mode, "NULL", o)
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
	return b.finishWrite(root, req, []string{"pgrst_mut AS (" + del + ")"}, ret, mode, "NULL", o)
}
