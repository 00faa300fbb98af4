package query

// Embeds as SQL. A read embeds the way PostgREST's queries do: one LEFT
// JOIN LATERAL per embed over the parent's scan (INNER for !inner), the
// to-many side aggregated with json_agg inside it, the to-one side joined
// as rows and turned into an object with row_to_json. Rows without an
// order then come back in the order that query shape yields, as they do
// from PostgREST. A level that aggregates (GROUP BY) uses correlated
// subqueries in the select list instead (embedSQL), which group by the
// parent's join columns. Spreads are spread.go's.

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// joined says whether embed e of l is a lateral join of l's query.
func (b *Builder) joined(l *level, e *embedLevel) bool {
	return l.lateral && !b.existsMode && !e.e.Spread
}

// aggAlias names e's lateral subquery.
func aggAlias(e *embedLevel) string { return q(e.lvl.alias + "_agg") }

// embedRef is the select item that reads a joined embed.
func embedRef(e *embedLevel) string {
	if e.single {
		return "row_to_json(" + aggAlias(e) + ".*) AS " + q(e.e.Key())
	}
	return "coalesce(" + aggAlias(e) + ".v, '[]') AS " + q(e.e.Key())
}

// embedNullSQL is rel=is.null (or not.is.null) on a joined embed.
func embedNullSQL(e *embedLevel, isNull bool) string {
	if e.single {
		if isNull {
			return aggAlias(e) + " IS NOT DISTINCT FROM NULL"
		}
		return aggAlias(e) + " IS DISTINCT FROM NULL"
	}
	if isNull {
		return aggAlias(e) + ".v IS NULL"
	}
	return aggAlias(e) + ".v IS NOT NULL"
}

// embedJoins are l's lateral joins, one per joined embed, in select order.
func (b *Builder) embedJoins(l *level) (string, error) {
	var sb strings.Builder
	for _, e := range l.embeds {
		if !b.joined(l, e) {
			continue
		}
		where, err := b.whereParts(e.lvl)
		if err != nil {
			return "", err
		}
		where = append([]string{joinCond(l.alias, e)}, where...)
		sel, err := b.selectSQL(e.lvl)
		if err != nil {
			return "", err
		}
		if sel == "" {
			sel = "1 AS pgrst_empty" // an empty embed only filters
		}
		joins, err := b.embedJoins(e.lvl)
		if err != nil {
			return "", err
		}
		group, err := b.groupBySQL(e.lvl)
		if err != nil {
			return "", err
		}
		inner := "SELECT " + sel + " FROM " + fromItem(l.alias, e) + joins + " WHERE " + strings.Join(where, " AND ") + group
		kind := " LEFT JOIN LATERAL ("
		if e.e.Inner {
			kind = " INNER JOIN LATERAL ("
		}
		if e.single {
			sb.WriteString(kind + inner + ") AS " + aggAlias(e) + " ON TRUE")
			continue
		}
		ord, err := b.orderSQL(e.lvl)
		if err != nil {
			return "", err
		}
		inner += ord + b.embedPage(e.lvl.node)
		on := "TRUE"
		if e.e.Inner {
			on = aggAlias(e) + ".v IS NOT NULL"
		}
		sb.WriteString(kind + "SELECT json_agg(pgrst_x) AS v FROM (" + inner + ") pgrst_x) AS " + aggAlias(e) + " ON " + on)
	}
	spreads, err := b.spreadJoins(l)
	if err != nil {
		return "", err
	}
	return sb.String() + spreads, nil
}

// duplicateEmbedAlias fails like PostgREST's SQL does when two sibling
// embeds get the same join alias, parent_name_depth (name being the
// embed's label or else its target): users!first_user(*) beside
// users!second_user(*) is PostgreSQL's 42712 there, and so here.
func duplicateEmbedAliases(l *level) error {
	seen := map[string]bool{}
	parent, depth := l.t, len(l.path)+1
	for _, e := range l.embeds {
		if err := duplicateEmbedAliases(e.lvl); err != nil {
			return err
		}
		name := e.e.Name
		if e.e.Alias != "" {
			name = e.e.Alias
		}
		alias := parent.Name + "_" + name + "_" + strconv.Itoa(depth)
		if seen[alias] {
			return apierr.New(http.StatusBadRequest, "42712", "table name \"%s\" specified more than once", alias)
		}
		seen[alias] = true
	}
	return nil
}

// embedPage is a to-many embed's LIMIT/OFFSET, its limit capped at
// MaxRows as PostgREST's db-max-rows caps every level of a read.
func (b *Builder) embedPage(n *Node) string {
	lim := n.Limit
	if b.MaxRows > 0 && (lim == nil || *lim > b.MaxRows) {
		lim = &b.MaxRows
	}
	return pageSQL(lim, n.Offset)
}

// hasAgg says whether a select list aggregates.
func hasAgg(items []SelectItem) bool {
	for _, it := range items {
		if it.Agg != "" {
			return true
		}
	}
	return false
}

// embedSQL is a non-spread embed read by a correlated subquery: its
// value, which the caller names.
func (b *Builder) embedSQL(parent *level, e *embedLevel) (string, error) {
	where, err := b.whereParts(e.lvl)
	if err != nil {
		return "", err
	}
	where = append([]string{joinCond(parent.alias, e)}, where...)
	joins, err := b.embedJoins(e.lvl)
	if err != nil {
		return "", err
	}
	from := " FROM " + fromItem(parent.alias, e) + joins + " WHERE " + strings.Join(where, " AND ")
	sel, err := b.selectSQL(e.lvl)
	if err != nil {
		return "", err
	}
	group, err := b.groupBySQL(e.lvl)
	if err != nil {
		return "", err
	}
	inner := "SELECT " + sel + from + group
	if e.single {
		return "(SELECT row_to_json(pgrst_x) FROM (" + inner + ") pgrst_x)", nil
	}
	ord, err := b.orderSQL(e.lvl)
	if err != nil {
		return "", err
	}
	inner += ord + b.embedPage(e.lvl.node)
	return "coalesce((SELECT json_agg(pgrst_x) FROM (" + inner + ") pgrst_x), '[]')", nil
}
