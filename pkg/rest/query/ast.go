// Package query turns PostgREST's URL grammar into a syntax tree (parse.go)
// and a syntax tree plus the schema cache into one parameterised SQL
// statement (build.go). Values only ever become bind parameters;
// identifiers only ever come from the schema cache, quoted.
package query

// Field is a column reference with an optional JSON path.
type Field struct {
	Name string
	Path []PathStep
}

// PathStep is one JSON arrow: "->" or "->>" with a key or array index.
type PathStep struct {
	Arrow string
	Key   string
}

// SelectItem is one element of select=.
type SelectItem struct {
	Star  bool
	Field *Field
	Alias string
	Cast  string
	Embed *Embed
	// Agg is an aggregate over Field (count, sum, avg, min, max), or
	// count() over the rows when Field is nil; AggCast casts its result.
	Agg     string
	AggCast string
}

// aggregates are the functions PostgREST allows in select.
var aggregates = map[string]bool{"count": true, "sum": true, "avg": true, "min": true, "max": true}

// Embed is an embedded resource: [alias:]name[!hint][!inner](select).
type Embed struct {
	Name   string
	Alias  string
	Hint   string
	Inner  bool
	Spread bool
	Select []SelectItem
}

// Key is the name the embed has in the output and in filter paths.
func (e *Embed) Key() string {
	if e.Alias != "" {
		return e.Alias
	}
	return e.Name
}

// Filter is col=[not.]op[(mod)].value.
type Filter struct {
	Field  Field
	Negate bool
	Op     string
	// Quant is "any" or "all" for eq(any) and friends.
	Quant string
	// Config is the text search configuration of fts(config).
	Config string
	Value  string
	// List is the parsed value of in.(…).
	List []string
}

// Cond is a filter or a logic tree.
type Cond struct {
	Filter *Filter
	Logic  *Logic
	// Embed, when set, is an is.null / not.is.null test on an embedded
	// resource of this name.
	Embed      string
	EmbedNull  bool
	EmbedNegat bool
}

// Logic is and(…) / or(…), possibly negated.
type Logic struct {
	Or       bool
	Negate   bool
	Children []Cond
}

// OrderTerm is one element of order=.
type OrderTerm struct {
	Field Field
	// Relation names a to-one embed for related ordering: rel(col).
	Relation string
	Desc     bool
	// Nulls is "first", "last" or "".
	Nulls string
}

// Node holds the filters and modifiers of one resource in the tree: the
// root (Path nil) or an embed (Path = keys from the root).
type Node struct {
	Path   []string
	Conds  []Cond
	Order  []OrderTerm
	Limit  *int64
	Offset *int64
}

// Request is the parsed query string.
type Request struct {
	// Select is nil when select= was absent (all columns).
	Select []SelectItem
	// Nodes are keyed by the dot-joined embed path ("" for the root).
	Nodes map[string]*Node
	// Columns is columns= for inserts; nil when absent.
	Columns []string
	// OnConflict is on_conflict=.
	OnConflict []string
	// Args are RPC arguments taken from the query string (GET/HEAD RPC).
	Args     map[string]string
	ArgOrder []string
}

// Root returns the root node.
func (r *Request) Root() *Node { return r.node(nil) }

func (r *Request) node(path []string) *Node {
	key := joinPath(path)
	n := r.Nodes[key]
	if n == nil {
		n = &Node{Path: append([]string(nil), path...)}
		r.Nodes[key] = n
	}
	return n
}

func joinPath(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += "."
		}
		s += x
	}
	return s
}
