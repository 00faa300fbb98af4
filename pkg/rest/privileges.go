package rest

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// visible is what the caller's role may use: the OIDs of tables it holds
// any privilege on and of functions it may execute, as PostgREST lists
// in its OpenAPI output.
type visible struct {
	tables map[int64]bool
	funcs  map[int64]bool
}

// privilegesSQL checks the cached objects' OIDs as the request's role
// (the statement runs after the role switch). Objects dropped since the
// cache was loaded give NULL and drop out.
const privilegesSQL = `SELECT NULL::text, '1', json_build_object(
 't', (SELECT coalesce(json_agg(o), '[]') FROM unnest($1::int8[]) o
        WHERE pg_catalog.has_table_privilege(o::oid, 'SELECT, INSERT, UPDATE, DELETE')
           OR pg_catalog.has_any_column_privilege(o::oid, 'SELECT, INSERT, UPDATE')),
 'f', (SELECT coalesce(json_agg(o), '[]') FROM unnest($2::int8[]) o
        WHERE pg_catalog.has_function_privilege(o::oid, 'EXECUTE')))::text, NULL::text, NULL::text`

func privilegesStatement(sc *schema.Cache, sch string) *query.Statement {
	var tabs, fns []string
	for _, name := range sc.TableNames(sch) {
		if t := sc.Table(sch, name); t != nil && t.OID != 0 {
			tabs = append(tabs, strconv.FormatInt(t.OID, 10))
		}
	}
	for _, name := range sc.FuncNames(sch) {
		for _, f := range sc.Funcs[schema.QI{Schema: sch, Name: name}] {
			fns = append(fns, strconv.FormatInt(f.OID, 10))
		}
	}
	t := "{" + strings.Join(tabs, ",") + "}"
	f := "{" + strings.Join(fns, ",") + "}"
	return &query.Statement{SQL: privilegesSQL, Args: []*string{&t, &f}}
}

// everything is what openapi-mode=ignore-privileges shows: every cached
// table and function of the schema, whatever the caller may use.
func everything(sc *schema.Cache, sch string) *visible {
	v := &visible{tables: map[int64]bool{}, funcs: map[int64]bool{}}
	for _, name := range sc.TableNames(sch) {
		if t := sc.Table(sch, name); t != nil {
			v.tables[t.OID] = true
		}
	}
	for _, name := range sc.FuncNames(sch) {
		for _, f := range sc.Funcs[schema.QI{Schema: sch, Name: name}] {
			v.funcs[f.OID] = true
		}
	}
	return v
}

func parseVisible(body []byte) (*visible, error) {
	var out struct {
		T []int64 `json:"t"`
		F []int64 `json:"f"`
	}
	if err := json.Unmarshal(body, &out); err != nil {
		return nil, apierr.Internal(err)
	}
	v := &visible{tables: map[int64]bool{}, funcs: map[int64]bool{}}
	for _, o := range out.T {
		v.tables[o] = true
	}
	for _, o := range out.F {
		v.funcs[o] = true
	}
	return v, nil
}
