package query

import (
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Reads: GET and HEAD over a table, a view or a function's result, as one
// statement that returns the page, the optional count and the JSON body.
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
	// Format is the body's representation.
	Format Format
	// Planned makes Count the planner's estimate (Prefer: count=planned)
	// instead of an exact count.
	Planned bool
	// EstimateAbove, for Prefer: count=estimated with db-max-rows, makes
	// the total the planner's estimate when the exact count exceeds it,
	// as PostgREST does; 0 keeps the exact count.
	EstimateAbove int64
	// Limit and Offset are the root's effective page (query and Range
	// header combined).
	Limit, Offset *int64
}

func (b *Builder) statement(sql string) *Statement {
	return &Statement{SQL: sql, Args: b.args}
}

const gucs = "nullif(current_setting('response.headers', true), ''), nullif(current_setting('response.status', true), '')"

// withClause is "WITH cte, … " before a statement, or "" without CTEs.
func withClause(ctes []string) string {
	if len(ctes) == 0 {
		return ""
	}
	return "WITH " + strings.Join(ctes, ", ") + " "
}

func wrap(ctes []string, total, body, inner string) string {
	return withClause(ctes) + "SELECT " + total + "::text, pg_catalog.count(*)::text, " + body + ", " + gucs + " FROM (" + inner + ") pgrst_t"
}

// csvBody is PostgREST's CSV: a header of the first row's keys, then each
// row's record text without its parentheses — PostgreSQL's own quoting
// (fields with commas, quotes, spaces or parentheses in double quotes,
// quotes doubled), t/f for booleans, NULL as an empty field. The header's
// subquery aggregates over the outer query's rows.
const csvBody = "coalesce((SELECT string_agg(pgrst_k, ',') FROM json_object_keys(json_agg(pgrst_t) -> 0) AS pgrst_k), '')" +
	" || E'\\n' || coalesce(string_agg(substring(pgrst_t::text, 2, length(pgrst_t::text) - 2), E'\\n'), '')"

// Format is a body representation other than JSON.
type Format int

const (
	FormatJSON    Format = iota
	FormatCSV            // text/csv
	FormatGeoJSON        // application/geo+json
)

// geoJSONBody is PostgREST's GeoJSON: a FeatureCollection of the rows as
// PostGIS renders them (the first geometry column as the geometry, the
// others as properties). Without a geometry column PostGIS raises 22023.
const geoJSONBody = "json_build_object('type', 'FeatureCollection', 'features', coalesce(json_agg(ST_AsGeoJSON(pgrst_t)::json), '[]'))::text"

func bodyExpr(head, strip bool, format Format, scalarCol string) string {
	switch {
	case head:
		return "''"
	case format == FormatCSV:
		return csvBody
	case format == FormatGeoJSON:
		return geoJSONBody
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
	b.leaned = false
	where, err := b.whereParts(root)
	if err != nil {
		return nil, err
	}
	leaned := b.leaned
	ord, err := b.orderSQL(root)
	if err != nil {
		return nil, err
	}
	joins, err := b.embedJoins(root)
	if err != nil {
		return nil, err
	}
	// The count reads the same rows without the embeds' joins: !inner
	// embeds and embed null filters become EXISTS there, as in PostgREST.
	countWhere := where
	if leaned {
		b.existsMode = true
		countWhere, err = b.whereParts(root)
		b.existsMode = false
		if err != nil {
			return nil, err
		}
	}
	whereSQL, countWhereSQL := "", ""
	if len(where) > 0 {
		whereSQL = " WHERE " + strings.Join(where, " AND ")
	}
	if len(countWhere) > 0 {
		countWhereSQL = " WHERE " + strings.Join(countWhere, " AND ")
	}
	from := " FROM " + tg.From + " AS " + q(tg.Alias)
	group, err := b.groupBySQL(root)
	if err != nil {
		return nil, err
	}
	inner := "SELECT " + selSQL + from + joins + whereSQL + group + ord + pageSQL(o.Limit, o.Offset)
	total := "NULL"
	countSQL := ""
	switch {
	case o.Count && o.EstimateAbove > 0:
		total = "(SELECT pg_catalog.count(*) FROM " + tg.From + " AS " + q(tg.Alias) + countWhereSQL + ")"
		countSQL = "EXPLAIN (FORMAT JSON) " + withClause(tg.CTEs) + "SELECT 1 FROM " + tg.From + " AS " + q(tg.Alias) + countWhereSQL
	case o.Count && o.Planned:
		// Prefer: count=planned: the planner's estimate of the same rows,
		// from an EXPLAIN pipelined before the statement (as PostgREST).
		countSQL = "EXPLAIN (FORMAT JSON) " + withClause(tg.CTEs) + "SELECT 1 FROM " + tg.From + " AS " + q(tg.Alias) + countWhereSQL
	case o.Count:
		total = "(SELECT pg_catalog.count(*) FROM " + tg.From + " AS " + q(tg.Alias) + countWhereSQL + ")"
	}
	st := b.statement(wrap(tg.CTEs, total, bodyExpr(o.Head, o.StripNulls, o.Format, tg.ScalarColumn), inner))
	st.CountSQL = countSQL
	if countSQL != "" && !o.Planned {
		st.EstimateAbove = o.EstimateAbove
	}
	return st, nil
}
