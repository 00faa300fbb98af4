package query

import "strings"

// opKind says how a filter operator turns into SQL.
type opKind int

const (
	opCompare  opKind = iota // col <op> value::type, (any)/(all) over an array
	opPattern                // LIKE/ILIKE/regex on text, (any)/(all) over a text array
	opIn                     // col = ANY(list)
	opIs                     // IS NULL / TRUE / FALSE / UNKNOWN
	opDistinct               // IS DISTINCT FROM
	opRange                  // containment, overlap and range adjacency
	opFTS                    // full-text search: tsvector @@ tsquery
)

// operator is one PostgREST filter operator.
type operator struct {
	name string
	// sql is the SQL operator; for opFTS, the tsquery function.
	sql  string
	kind opKind
}

// quantifiable says whether the operator takes (any)/(all).
func (o operator) quantifiable() bool { return o.kind == opCompare || o.kind == opPattern }

// operatorList is every operator PostgREST knows, in the order its
// documentation and its parse errors list them. It is the only table of
// operators: the parser, the SQL builder and error messages read it.
var operatorList = []operator{
	{"eq", "=", opCompare}, {"neq", "<>", opCompare},
	{"gt", ">", opCompare}, {"gte", ">=", opCompare}, {"lt", "<", opCompare}, {"lte", "<=", opCompare},
	{"like", "LIKE", opPattern}, {"ilike", "ILIKE", opPattern}, {"match", "~", opPattern}, {"imatch", "~*", opPattern},
	{"in", "", opIn}, {"is", "", opIs}, {"isdistinct", "", opDistinct},
	{"cs", "@>", opRange}, {"cd", "<@", opRange}, {"ov", "&&", opRange}, {"sl", "<<", opRange},
	{"sr", ">>", opRange}, {"nxl", "&>", opRange}, {"nxr", "&<", opRange}, {"adj", "-|-", opRange},
	{"fts", "to_tsquery", opFTS}, {"plfts", "plainto_tsquery", opFTS},
	{"phfts", "phraseto_tsquery", opFTS}, {"wfts", "websearch_to_tsquery", opFTS},
}

var operators = func() map[string]operator {
	m := make(map[string]operator, len(operatorList))
	for _, o := range operatorList {
		m[o.name] = o
	}
	return m
}()

// operatorNames is the list a parse error offers.
var operatorNames = func() string {
	names := make([]string, len(operatorList))
	for i, o := range operatorList {
		names[i] = o.name
	}
	return strings.Join(names, ", ")
}()
