package query

// Aggregates in select (count(), col.sum(), avg, min, max), as PostgREST's
// db-aggregates-enabled: every other selected column of the same resource
// becomes a GROUP BY key.

import (
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// bareCount reads a plain "count" item, where the resource has no column
// or computed field of that name, as count(): PostgREST keeps the old
// select=count and embed(count) spelling working as the count aggregate.
func (b *Builder) bareCount(t *schema.Table, items []SelectItem) []SelectItem {
	var out []SelectItem
	for i, it := range items {
		if it.Field == nil || it.Agg != "" || it.Field.Name != "count" || len(it.Field.Path) > 0 ||
			t.Column("count") != nil || b.Cache.ComputedField(t, "count") != nil {
			continue
		}
		if out == nil {
			out = append([]SelectItem(nil), items...)
		}
		out[i] = SelectItem{Agg: "count", Alias: it.Alias, AggCast: it.Cast}
	}
	if out == nil {
		return items
	}
	return out
}

// aggExpr renders one aggregate item.
func (b *Builder) aggExpr(l *level, it SelectItem) (string, error) {
	if !b.Aggregates {
		return "", pgrst.Aggregates()
	}
	expr := "count(*)"
	if it.Field != nil {
		fe, err := b.itemExpr(l, it)
		if err != nil {
			return "", err
		}
		expr = it.Agg + "(" + fe + ")"
	}
	return castExpr(expr, it.AggCast)
}

// groupBySQL is " GROUP BY …" for a level that selects an aggregate: its
// plain columns, and the parent-side columns its embeds join on (so their
// correlated subqueries stay valid, one per group). "" without aggregates.
func (b *Builder) groupBySQL(l *level) (string, error) {
	if !hoists(l) {
		return "", nil
	}
	var keys []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, it := range l.items {
		switch {
		case it.Agg != "":
		case it.Star:
			for _, c := range l.t.Columns {
				add(q(l.alias) + "." + q(c.Name))
			}
		case it.Field != nil:
			expr, err := b.itemExpr(l, it)
			if err != nil {
				return "", err
			}
			add(expr)
		}
	}
	for _, e := range l.embeds {
		var cols []string
		switch {
		case e.e.Spread && len(e.lvl.items) == 0:
			continue
		case e.e.Spread && e.single:
			// A to-one spread's plain columns are the parent's group keys;
			// its aggregates are the parent's.
			r, err := b.spreadOf(l, e)
			if err != nil {
				return "", err
			}
			for _, c := range r.cols {
				if c.agg == "" {
					add(c.ref)
				}
			}
			continue
		case e.fn != nil:
			// A computed relationship reads the whole row: group by its key.
			if len(l.t.PK) == 0 {
				return "", pgrst.NotImplemented("Aggregates beside a computed relationship need a primary key on '" + l.t.Name + "'")
			}
			cols = l.t.PK
		case e.jn != nil:
			cols = e.jn.Src.ToCols
		case e.forward:
			cols = e.fk.FromCols
		default:
			cols = e.fk.ToCols
		}
		for _, c := range cols {
			add(q(l.alias) + "." + q(c))
		}
	}
	if len(keys) == 0 {
		return "", nil
	}
	return " GROUP BY " + strings.Join(keys, ", "), nil
}
