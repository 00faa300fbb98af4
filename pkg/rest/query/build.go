package query

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Statement is one SQL statement and its text-format bind values. Every
// statement built here returns one row of five text columns: total count
// (or NULL), rows in the page, the body, and the response.headers and
// response.status settings.
type Statement struct {
	SQL  string
	Args []*string
	// CountSQL, when set, is an EXPLAIN (FORMAT JSON) over the same
	// arguments whose top plan's row estimate is the total.
	CountSQL string
	// EstimateAbove, when set, uses CountSQL's estimate only when the
	// exact total exceeds it (Prefer: count=estimated).
	EstimateAbove int64
}

// Builder accumulates bind values while SQL is generated.
type Builder struct {
	Cache *schema.Cache
	// Aggregates allows count(), col.sum() and the like in select
	// (DB_AGGREGATES_ENABLED, PostgREST's db-aggregates-enabled).
	Aggregates bool
	// MaxRows caps every embed's rows (DB_MAX_ROWS, db-max-rows); 0 is
	// no cap. The root's page is capped by the caller.
	MaxRows int64
	args    []*string
	nalias  int
	// existsMode renders conditions for a count or an EXISTS, where the
	// lateral joins of the read are absent.
	existsMode bool
	// leaned is set when conditions relied on the lateral joins, so a
	// count needs its own EXISTS form of them.
	leaned bool
}

// NewBuilder returns a builder over cache.
func NewBuilder(c *schema.Cache) *Builder { return &Builder{Cache: c} }

func (b *Builder) bind(v string) string {
	b.args = append(b.args, &v)
	return "$" + strconv.Itoa(len(b.args))
}

// q quotes an identifier as pgx.Identifier.Sanitize does (quotes doubled,
// NUL dropped), in one allocation for the usual name that has neither:
// statements quote every name they mention, and Sanitize's general path
// was the largest allocator of a request (docs/performance.md).
func q(name string) string {
	if strings.IndexByte(name, '"') < 0 && strings.IndexByte(name, 0) < 0 {
		return `"` + name + `"`
	}
	return pgx.Identifier{name}.Sanitize()
}

func qi(t *schema.Table) string {
	if strings.IndexByte(t.Schema, '"') < 0 && strings.IndexByte(t.Schema, 0) < 0 &&
		strings.IndexByte(t.Name, '"') < 0 && strings.IndexByte(t.Name, 0) < 0 {
		return `"` + t.Schema + `"."` + t.Name + `"`
	}
	return pgx.Identifier{t.Schema, t.Name}.Sanitize()
}

// level is one resource in the resolved select tree.
type level struct {
	t      *schema.Table
	alias  string
	items  []SelectItem
	node   *Node
	path   []string
	embeds []*embedLevel
	// expandStar renders * as the table's columns, for a mutation whose
	// RETURNING carries extra columns (pgrst_inserted).
	expandStar bool
	// lateral renders the level's embeds as lateral joins (lateral.go).
	lateral bool
	// sqlName is what PostgREST's SQL calls this level, which its
	// errors name: the table, or for an embed table_depth (messages_1).
	sqlName string
}

type embedLevel struct {
	rel
	e   *Embed
	lvl *level
	// spread is the rendered spread, once rendered (spread.go).
	spread *spreadRender
}

func (l *level) embed(key string) *embedLevel {
	for _, e := range l.embeds {
		if e.e.Key() == key {
			return e
		}
	}
	return nil
}

// resolve binds the select tree to the schema cache.
func (b *Builder) resolve(t *schema.Table, alias string, items []SelectItem, req *Request, path []string) (*level, error) {
	if items == nil {
		items = []SelectItem{{Star: true}}
	}
	items = b.bareCount(t, items)
	l := &level{t: t, alias: alias, items: items, node: req.Nodes[joinPath(path)], path: path, sqlName: alias}
	if l.node == nil {
		l.node = &Node{Path: path}
	}
	for _, it := range items {
		if it.Embed == nil {
			continue
		}
		r, err := b.relationship(t, it.Embed)
		if err != nil {
			return nil, err
		}
		child := b.Cache.Tables[r.target()]
		b.nalias++
		cpath := append(append([]string(nil), path...), it.Embed.Key())
		cl, err := b.resolve(child, "pgrst_"+strconv.Itoa(b.nalias)+"_"+child.Name, it.Embed.Select, req, cpath)
		if err != nil {
			return nil, err
		}
		if r.jn != nil {
			r.jalias = "pgrst_" + strconv.Itoa(b.nalias) + "_" + r.jn.Table.Name
		}
		if it.Embed.Spread {
			cl.lateral = false
		}
		cl.sqlName = child.Name // many-to-many: PostgREST does not alias it
		if r.jn == nil {
			cl.sqlName += "_" + strconv.Itoa(len(cpath))
		}
		l.embeds = append(l.embeds, &embedLevel{rel: r, e: it.Embed, lvl: cl})
	}
	l.lateral = !hoists(l)
	if len(path) == 0 {
		// After every relationship resolved: PostgREST's errors for those
		// come before the SQL error a colliding alias gives.
		if err := duplicateEmbedAliases(l); err != nil {
			return nil, err
		}
	}
	// Embed null filters (rel=is.null) are recognised here, where the
	// embeds are known.
	for i, c := range l.node.Conds {
		if c.Filter != nil && len(c.Filter.Field.Path) == 0 && l.t.Column(c.Filter.Field.Name) == nil {
			if e := l.embed(c.Filter.Field.Name); e != nil {
				f := c.Filter
				if f.Op != "is" || (f.Value != "null" && f.Value != "not_null") {
					e2 := apierr.New(http.StatusBadRequest, pgrst.CodeEmbedFilter, "Bad operator on the '%s' embedded resource", f.Field.Name)
					e2.Details = "Only is null or not is null filters are allowed on embedded resources"
					return nil, e2
				}
				isNull := (f.Value == "null") != f.Negate
				l.node.Conds[i] = Cond{Embed: f.Field.Name, EmbedNull: isNull}
			}
		}
	}
	return l, nil
}

// checkNodes reports filters or modifiers aimed at resources that are not
// embedded in this request: PGRST108.
func checkNodes(root *level, req *Request) error {
	known := map[string]bool{"": true}
	var walk func(l *level)
	walk = func(l *level) {
		for _, e := range l.embeds {
			known[joinPath(e.lvl.path)] = true
			walk(e.lvl)
		}
	}
	walk(root)
	keys := make([]string, 0, len(req.Nodes))
	for k := range req.Nodes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := req.Nodes[k]
		if known[k] || (len(n.Conds) == 0 && len(n.Order) == 0 && n.Limit == nil && n.Offset == nil) {
			continue
		}
		name := n.Path[len(n.Path)-1]
		// Report the first missing step, as PostgREST names the resource.
		for i := range n.Path {
			if !known[joinPath(n.Path[:i+1])] {
				name = n.Path[i]
				break
			}
		}
		return pgrst.NotEmbedded(name)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fieldExpr renders a column with its JSON path and returns the SQL type a
// compared value should be cast to.
func (b *Builder) fieldExpr(l *level, f Field) (expr, typ string, col *schema.Column, err error) {
	col = l.t.Column(f.Name)
	expr = q(l.alias) + "." + q(f.Name)
	if col == nil {
		fn := b.Cache.ComputedField(l.t, f.Name)
		if fn == nil {
			return "", "", nil, ColumnNotFound(l.sqlName, f.Name, l.t.ColumnNames())
		}
		// A computed field: the function applied to the row.
		col = &schema.Column{Name: f.Name, Type: fn.RetType, Base: fn.RetType, Nullable: true}
		if fn.RetType == "text" || fn.RetType == "character varying" {
			col.Category = "S"
		}
		expr = qiFunc(fn) + "(" + q(l.alias) + ")"
	}
	typ = col.Type
	for _, s := range f.Path {
		key := s.Key
		if _, err := strconv.Atoi(key); err == nil {
			expr += s.Arrow + b.bind(key) + "::integer"
		} else {
			expr += s.Arrow + b.bind(key) + "::text"
		}
		if s.Arrow == "->>" {
			typ = "text"
		} else if col.Base == "json" {
			typ = "json"
		} else {
			typ = "jsonb"
		}
	}
	return expr, typ, col, nil
}

func isTextish(col *schema.Column, typ string) bool {
	return typ == "text" || (typ == col.Type && col.Category == "S")
}

func (b *Builder) filterSQL(l *level, f *Filter) (string, error) {
	expr, typ, col, err := b.fieldExpr(l, f.Field)
	if err != nil {
		return "", err
	}
	if typ == "json" {
		// json has no equality operator; compare as jsonb.
		expr = "(" + expr + ")::jsonb"
		typ = "jsonb"
	}
	op, ok := operators[f.Op]
	if !ok {
		return "", apierr.New(http.StatusBadRequest, pgrst.CodeParse, "unknown operator %q", f.Op)
	}
	var s string
	switch op.kind {
	case opCompare:
		if f.Quant != "" {
			s = fmt.Sprintf("%s %s %s(%s::%s[])", expr, op.sql, strings.ToUpper(f.Quant), b.bind(f.Value), typ)
		} else {
			s = fmt.Sprintf("%s %s %s::%s", expr, op.sql, b.bind(f.Value), typ)
		}
	case opPattern:
		if !isTextish(col, typ) {
			expr = "(" + expr + ")::text"
		}
		v := f.Value
		if f.Op == "like" || f.Op == "ilike" {
			v = strings.ReplaceAll(v, "*", "%")
		}
		if f.Quant != "" {
			s = fmt.Sprintf("%s %s %s(%s::text[])", expr, op.sql, strings.ToUpper(f.Quant), b.bind(v))
		} else {
			s = fmt.Sprintf("%s %s %s::text", expr, op.sql, b.bind(v))
		}
	case opIn:
		s = fmt.Sprintf("%s = ANY(%s::%s[])", expr, b.bind(arrayLiteral(f.List)), typ)
	case opIs:
		s = expr + map[string]string{"null": " IS NULL", "not_null": " IS NOT NULL", "true": " IS TRUE", "false": " IS FALSE", "unknown": " IS UNKNOWN"}[f.Value]
	case opDistinct:
		s = fmt.Sprintf("%s IS DISTINCT FROM %s::%s", expr, b.bind(f.Value), typ)
	case opRange:
		v := f.Value
		if f.Op == "ov" && strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") && strings.HasSuffix(typ, "[]") {
			v = arrayLiteral(splitList(v[1 : len(v)-1]))
		}
		s = fmt.Sprintf("%s %s %s::%s", expr, op.sql, b.bind(v), typ)
	case opFTS:
		cfg := ""
		if f.Config != "" {
			cfg = b.bind(f.Config) + "::regconfig, "
		}
		vec := expr
		if col.Base != "tsvector" || len(f.Field.Path) > 0 {
			vec = "to_tsvector(" + cfg + "(" + expr + ")::text)"
		}
		s = fmt.Sprintf("%s @@ %s(%s%s::text)", vec, op.sql, cfg, b.bind(f.Value))
	}
	if f.Negate {
		s = "NOT (" + s + ")"
	}
	return s, nil
}

// arrayLiteral renders a PostgreSQL array literal with every element
// quoted, so commas, braces and quotes in values stay values.
func arrayLiteral(items []string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, it := range items {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('"')
		for _, r := range it {
			if r == '"' || r == '\\' {
				sb.WriteByte('\\')
			}
			sb.WriteRune(r)
		}
		sb.WriteByte('"')
	}
	sb.WriteByte('}')
	return sb.String()
}

func (b *Builder) condSQL(l *level, c Cond) (string, error) {
	switch {
	case c.Filter != nil:
		return b.filterSQL(l, c.Filter)
	case c.Logic != nil:
		parts := make([]string, 0, len(c.Logic.Children))
		for _, ch := range c.Logic.Children {
			s, err := b.condSQL(l, ch)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		sep := " AND "
		if c.Logic.Or {
			sep = " OR "
		}
		s := "(" + strings.Join(parts, sep) + ")"
		if c.Logic.Negate {
			s = "NOT " + s
		}
		return s, nil
	default:
		e := l.embed(c.Embed)
		if b.joined(l, e) {
			b.leaned = true
			return embedNullSQL(e, c.EmbedNull), nil
		}
		ex, err := b.existsSQL(l, e)
		if err != nil {
			return "", err
		}
		if c.EmbedNull {
			return "NOT " + ex, nil
		}
		return ex, nil
	}
}

func (b *Builder) existsSQL(parent *level, e *embedLevel) (string, error) {
	saved := b.existsMode
	b.existsMode = true
	where, err := b.whereParts(e.lvl)
	b.existsMode = saved
	if err != nil {
		return "", err
	}
	where = append([]string{joinCond(parent.alias, e)}, where...)
	return "EXISTS (SELECT 1 FROM " + fromItem(parent.alias, e) + " WHERE " + strings.Join(where, " AND ") + ")", nil
}

// whereParts are a level's conditions: its filters and an EXISTS for
// every !inner embed.
func (b *Builder) whereParts(l *level) ([]string, error) {
	var out []string
	for _, c := range l.node.Conds {
		s, err := b.condSQL(l, c)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	for _, e := range l.embeds {
		if e.e.Inner && b.joined(l, e) {
			b.leaned = true
		}
		if e.e.Inner && !b.joined(l, e) {
			s, err := b.existsSQL(l, e)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func outputName(it SelectItem) string {
	if it.Alias != "" {
		return it.Alias
	}
	if it.Agg != "" {
		return it.Agg
	}
	if n := len(it.Field.Path); n > 0 {
		return it.Field.Path[n-1].Key
	}
	return it.Field.Name
}

// castRe allows only plain type names; the parser already restricts them.
var castRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// itemExpr is a select item's column (or JSON path) with its ::type cast:
// what the select shows, what a GROUP BY groups on, what an aggregate
// reads.
func (b *Builder) itemExpr(l *level, it SelectItem) (string, error) {
	expr, _, _, err := b.fieldExpr(l, *it.Field)
	if err != nil {
		return "", err
	}
	return castExpr(expr, it.Cast)
}

// castExpr applies a select item's ::type cast, if any.
func castExpr(expr, cast string) (string, error) {
	if cast == "" {
		return expr, nil
	}
	if !castRe.MatchString(cast) {
		return "", apierr.New(http.StatusBadRequest, pgrst.CodeParse, "invalid cast %q", cast)
	}
	return "CAST(" + expr + " AS " + cast + ")", nil
}

func (b *Builder) selectSQL(l *level) (string, error) {
	var parts []string
	ei := 0
	for _, it := range l.items {
		switch {
		case it.Agg != "":
			expr, err := b.aggExpr(l, it)
			if err != nil {
				return "", err
			}
			parts = append(parts, expr+" AS "+q(outputName(it)))
		case it.Star && l.expandStar:
			for _, c := range l.t.Columns {
				parts = append(parts, q(l.alias)+"."+q(c.Name)+" AS "+q(c.Name))
			}
		case it.Star:
			parts = append(parts, q(l.alias)+".*")
		case it.Field != nil:
			expr, err := b.itemExpr(l, it)
			if err != nil {
				return "", err
			}
			parts = append(parts, expr+" AS "+q(outputName(it)))
		case it.Embed != nil:
			e := l.embeds[ei]
			ei++
			switch {
			case len(e.lvl.items) == 0:
				// An empty embed is not output.
			case e.e.Spread:
				s, err := b.spreadSelect(l, e)
				if err != nil {
					return "", err
				}
				parts = append(parts, s...)
			case b.joined(l, e):
				parts = append(parts, embedRef(e))
			default:
				s, err := b.embedSQL(l, e)
				if err != nil {
					return "", err
				}
				parts = append(parts, s+" AS "+q(e.e.Key()))
			}
		}
	}
	return strings.Join(parts, ", "), nil
}
