package query

// Spread embeds (...rel(cols)), as PostgREST 13+ builds them.
//
// A to-one spread is a LEFT JOIN LATERAL over the parent's scan that
// exposes the spread's columns raw; the parent selects them under their
// own names. An aggregate inside it (...rel(col.sum()), ...rel(count()),
// also from deeper to-one spreads) is therefore applied by the parent, and
// the parent groups by its own plain columns and the spread's, as
// PostgREST hoists such aggregates into the top parent's grouping.
//
// A to-many spread lifts each column as an array of its values (in the
// embed's order and page), and an aggregate inside it as that aggregate
// over the embed's rows, one value per parent row. Spreads nested inside a
// to-many spread are joined flat into its rows, so their columns are
// arrays too and their aggregates count those rows. PostgREST 14 refuses
// aggregates in a to-many spread (PGRST127); its development line answers
// them this way (AggregateFunctionsSpec, "to-many spread relationships"),
// which is what Labelbase does. A to-many spread needs aggregates enabled
// (PGRST123 otherwise), as in PostgREST.

import (
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

// spreadCol is one output column a spread lifts into its parent.
type spreadCol struct {
	name string
	// src is the value in the spread's own scope, before it was exposed.
	src string
	// ref is the value where the parent reads it: a column of the
	// spread's lateral, or a correlated subquery. "" for count().
	ref string
	// agg is the aggregate the reader applies to ref; count with ref ""
	// is count(*).
	agg, aggCast string
}

// spreadRender is a rendered spread embed: its lateral join (to-one, or a
// to-many flattened into a to-many parent) and its columns.
type spreadRender struct {
	join string
	cols []spreadCol
}

// hoists says whether l's select, or a to-one spread under it, applies an
// aggregate at l's level: l then groups (and embeds by subqueries).
func hoists(l *level) bool {
	if hasAgg(l.items) {
		return true
	}
	for _, e := range l.embeds {
		if e.e.Spread && e.single && hoists(e.lvl) {
			return true
		}
	}
	return false
}

// spreadOf renders the spread e of parent once: bind values are added
// while rendering, so select list, joins and GROUP BY share one render.
func (b *Builder) spreadOf(parent *level, e *embedLevel) (*spreadRender, error) {
	if e.spread != nil {
		return e.spread, nil
	}
	var r *spreadRender
	var err error
	if e.single {
		r, err = b.spreadJoin(parent, e, false)
	} else {
		r, err = b.manySpread(parent, e)
	}
	if err != nil {
		return nil, err
	}
	e.spread = r
	return r, nil
}

// spreadSelect is the parent's select list for spread e.
func (b *Builder) spreadSelect(parent *level, e *embedLevel) ([]string, error) {
	r, err := b.spreadOf(parent, e)
	if err != nil {
		return nil, err
	}
	parts := make([]string, 0, len(r.cols))
	for _, c := range r.cols {
		expr := c.ref
		if c.agg != "" {
			if !b.Aggregates {
				return nil, pgrst.Aggregates()
			}
			if expr == "" {
				expr = "count(*)"
			} else {
				expr = c.agg + "(" + expr + ")"
			}
			if expr, err = castExpr(expr, c.aggCast); err != nil {
				return nil, err
			}
		}
		parts = append(parts, expr+" AS "+q(c.name))
	}
	return parts, nil
}

// spreadBody lists what spread level s exposes to its reader, each value
// in s's scope, and the laterals of the spreads under it. flat says s is
// (under) a to-many spread: a to-many spread under it is joined flat
// rather than turned into arrays per row.
func (b *Builder) spreadBody(s *level, flat bool) (cols []spreadCol, joins string, err error) {
	ei := 0
	for _, it := range s.items {
		switch {
		case it.Star:
			for _, c := range s.t.Columns {
				cols = append(cols, spreadCol{name: c.Name, ref: q(s.alias) + "." + q(c.Name)})
			}
		case it.Agg != "":
			c := spreadCol{name: outputName(it), agg: it.Agg, aggCast: it.AggCast}
			if it.Field != nil {
				if c.ref, err = b.itemExpr(s, it); err != nil {
					return nil, "", err
				}
			}
			cols = append(cols, c)
		case it.Field != nil:
			ref, err := b.itemExpr(s, it)
			if err != nil {
				return nil, "", err
			}
			cols = append(cols, spreadCol{name: outputName(it), ref: ref})
		case it.Embed != nil:
			e := s.embeds[ei]
			ei++
			sub, join, err := b.spreadChild(s, e, flat)
			if err != nil {
				return nil, "", err
			}
			cols, joins = append(cols, sub...), joins+join
		}
	}
	return cols, joins, nil
}

// spreadChild is what embed e under spread level s contributes to s.
func (b *Builder) spreadChild(s *level, e *embedLevel, flat bool) ([]spreadCol, string, error) {
	switch {
	case !e.e.Spread:
		if len(e.lvl.items) == 0 {
			return nil, "", nil
		}
		v, err := b.embedSQL(s, e)
		if err != nil {
			return nil, "", err
		}
		return []spreadCol{{name: e.e.Key(), ref: v}}, "", nil
	case e.single || flat:
		r, err := b.spreadJoin(s, e, flat)
		if err != nil {
			return nil, "", err
		}
		return r.cols, r.join, nil
	default:
		r, err := b.manySpread(s, e)
		if err != nil {
			return nil, "", err
		}
		return r.cols, "", nil
	}
}

// spreadJoin renders e as a lateral join of parent exposing its values as
// pgrst_s1, pgrst_s2, …; the columns returned read them there.
func (b *Builder) spreadJoin(parent *level, e *embedLevel, flat bool) (*spreadRender, error) {
	cols, joins, err := b.spreadBody(e.lvl, flat || !e.single)
	if err != nil {
		return nil, err
	}
	where, err := b.whereParts(e.lvl)
	if err != nil {
		return nil, err
	}
	where = append([]string{joinCond(parent.alias, e)}, where...)
	alias := q(e.lvl.alias + "_spread")
	exposed := make([]string, 0, len(cols))
	for i := range cols {
		if cols[i].ref == "" {
			continue
		}
		name := "pgrst_s" + strconv.Itoa(len(exposed)+1)
		exposed = append(exposed, cols[i].ref+" AS "+name)
		cols[i].src, cols[i].ref = cols[i].ref, alias+"."+name
	}
	if len(exposed) == 0 {
		exposed = []string{"1 AS pgrst_empty"}
	}
	join := " LEFT JOIN LATERAL (SELECT " + strings.Join(exposed, ", ") + " FROM " + fromItem(parent.alias, e) + joins +
		" WHERE " + strings.Join(where, " AND ") + ") AS " + alias + " ON TRUE"
	return &spreadRender{join: join, cols: cols}, nil
}

// manySpread renders a to-many spread read per parent row: one correlated
// subquery per column over the embed's rows (filtered, ordered, paged),
// each an array of the column's values or the column's aggregate.
func (b *Builder) manySpread(parent *level, e *embedLevel) (*spreadRender, error) {
	if !b.Aggregates {
		return nil, pgrst.Aggregates()
	}
	cols, joins, err := b.spreadBody(e.lvl, true)
	if err != nil {
		return nil, err
	}
	where, err := b.whereParts(e.lvl)
	if err != nil {
		return nil, err
	}
	where = append([]string{joinCond(parent.alias, e)}, where...)
	ord, err := b.orderSQL(e.lvl)
	if err != nil {
		return nil, err
	}
	exposed := make([]string, 0, len(cols))
	for i, c := range cols {
		if c.ref != "" {
			exposed = append(exposed, c.ref+" AS pgrst_s"+strconv.Itoa(i+1))
		}
	}
	if len(exposed) == 0 {
		exposed = []string{"1 AS pgrst_empty"}
	}
	rows := " FROM (SELECT " + strings.Join(exposed, ", ") + " FROM " + fromItem(parent.alias, e) + joins +
		" WHERE " + strings.Join(where, " AND ") + ord + b.embedPage(e.lvl.node) + ") pgrst_x"
	out := make([]spreadCol, len(cols))
	for i, c := range cols {
		col := "pgrst_x.pgrst_s" + strconv.Itoa(i+1)
		var v string
		switch {
		case c.agg == "":
			v = "coalesce(json_agg(" + col + "), '[]')"
		case c.ref == "":
			v = "count(*)"
		default:
			v = c.agg + "(" + col + ")"
		}
		if v, err = castExpr(v, c.aggCast); err != nil {
			return nil, err
		}
		out[i] = spreadCol{name: c.name, ref: "(SELECT " + v + rows + ")"}
	}
	return &spreadRender{cols: out}, nil
}

// spreadOrderRef is what a related order on to-one spread e by field f
// reads: the spread's column of that output name or value, so that it
// stays valid where the parent groups. "" when the spread does not
// select it (the caller orders by a subquery then).
func (b *Builder) spreadOrderRef(l *level, e *embedLevel, f Field) (string, error) {
	if !e.e.Spread || !e.single || len(e.lvl.items) == 0 {
		return "", nil
	}
	r, err := b.spreadOf(l, e)
	if err != nil {
		return "", err
	}
	for _, c := range r.cols {
		if c.agg == "" && len(f.Path) == 0 && c.name == f.Name {
			return c.ref, nil
		}
	}
	src := q(e.lvl.alias) + "." + q(f.Name)
	for _, c := range r.cols {
		if c.agg == "" && len(f.Path) == 0 && c.src == src {
			return c.ref, nil
		}
	}
	return "", nil
}

// spreadJoins are the lateral joins of l's to-one spreads.
func (b *Builder) spreadJoins(l *level) (string, error) {
	var sb strings.Builder
	for _, e := range l.embeds {
		if !e.e.Spread || !e.single || len(e.lvl.items) == 0 {
			continue
		}
		r, err := b.spreadOf(l, e)
		if err != nil {
			return "", err
		}
		sb.WriteString(r.join)
	}
	return sb.String(), nil
}
