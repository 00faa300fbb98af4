// Package schema is the REST API's schema cache: the tables, views,
// columns, keys, foreign keys and functions of the exposed schemas, read
// from the catalog once and then consulted for every request, so request
// planning never touches the catalog.
package schema

import (
	"context"
	"fmt"
	"sort"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/db"
)

// Cache is one immutable snapshot of the exposed schemas. A reload builds a
// new Cache and swaps the pointer; requests keep the one they started with.
type Cache struct {
	Schemas []string
	Tables  map[QI]*Table
	Funcs   map[QI][]*Func
	// Reads are the request settings something in the database reads
	// (reads.go); the gateway sends only those unless told to send all.
	Reads db.Reads
	// WritesResponse says whether anything in the database could set a
	// response GUC (reads.go); when nothing can, a folded write sends no
	// guard after its statement.
	WritesResponse bool
}

// QI is a schema-qualified name.
type QI struct{ Schema, Name string }

func (q QI) String() string { return q.Schema + "." + q.Name }

// Table is a table, view, materialized view or foreign table.
type Table struct {
	Schema, Name string
	// OID is pg_class.oid (0 for function results).
	OID int64
	// Kind is pg_class.relkind: r, p, v, m or f.
	Kind        string
	Description string
	Columns     []*Column
	byName      map[string]*Column
	PK          []string
	// Uniques are the unique keys (primary key included), from unique
	// non-partial indexes on plain columns.
	Uniques [][]string
	// FKs are the foreign keys this table holds; Refs those pointing at it.
	FKs  []*FK
	Refs []*FK
	// RowType, for a function's result, is the table whose rows it
	// returns: its computed fields and relationships apply.
	RowType *QI
}

// Column is one column of a table or of a function's result.
type Column struct {
	Name string
	// Type is format_type's rendering, schema-qualified where needed, safe
	// to splice into SQL as a cast target.
	Type string
	// Base is the underlying type's name (domains resolved), e.g. "int8",
	// "text", "_text", "jsonb", "tsvector".
	Base string
	// Category is pg_type.typcategory of the base type (S string, N
	// numeric, A array, U user incl. json, B boolean, D date/time, R range).
	Category string
	Nullable bool
	Default  string
	// InsertDefault is the expression PostgREST fills an absent column
	// with under Prefer: missing=default: a domain's default for a domain
	// column, nextval of a BY DEFAULT identity's sequence, nothing for a
	// generated column, else the column default ("" for none).
	InsertDefault string
	Identity      bool
	Generated     bool
	Description   string
}

// FK is a foreign key from From(FromCols) to To(ToCols).
type FK struct {
	Name     string
	From     QI
	FromCols []string
	To       QI
	ToCols   []string
	// OneToOne is set when FromCols are also a key of From, so at most
	// one row refers to each referenced row.
	OneToOne bool
}

// Func is a callable function.
type Func struct {
	Schema, Name string
	// OID is pg_proc.oid.
	OID         int64
	Description string
	Params      []Param
	// Volatility is v, s or i.
	Volatility string
	RetSet     bool
	// RetKind is "scalar", "composite" or "void".
	RetKind string
	RetType string
	// RetCols are the columns of a composite or table result.
	RetCols []*Column
	// RetRel is the table whose row type the function returns, if any.
	RetRel *QI
	// Rows is pg_proc.prorows, the planner's estimate of a set-returning
	// function's rows: ROWS 1 makes a computed relationship to-one.
	Rows float64
}

// Param is an input parameter.
type Param struct {
	Name       string
	Type       string
	HasDefault bool
	Variadic   bool
}

// Column returns the named column or nil.
func (t *Table) Column(name string) *Column { return t.byName[name] }

// QI returns the table's qualified name.
func (t *Table) QI() QI { return QI{t.Schema, t.Name} }

// ColumnNames lists the columns in order.
func (t *Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// NewTable builds a table (also used for function results).
func NewTable(schema, name, kind string, cols []*Column) *Table {
	t := &Table{Schema: schema, Name: name, Kind: kind, Columns: cols, byName: map[string]*Column{}}
	for _, c := range cols {
		t.byName[c.Name] = c
	}
	return t
}

// Table returns the table or nil.
func (c *Cache) Table(schema, name string) *Table { return c.Tables[QI{schema, name}] }

// TableNames lists the tables of schema, sorted.
func (c *Cache) TableNames(schema string) []string {
	var out []string
	for q := range c.Tables {
		if q.Schema == schema {
			out = append(out, q.Name)
		}
	}
	sort.Strings(out)
	return out
}

// FuncNames lists the functions of schema, sorted.
func (c *Cache) FuncNames(schema string) []string {
	var out []string
	for q := range c.Funcs {
		if q.Schema == schema {
			out = append(out, q.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Querier is what Load reads the catalog through.
type Querier interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// Load reads the catalog for schemas. It needs no privileges beyond what
// every role has on pg_catalog, so the authenticator pool can run it.
func Load(ctx context.Context, q Querier, schemas []string) (*Cache, error) {
	tx, err := q.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("schema: begin: %w", err)
	}
	defer tx.Rollback(ctx)
	// An empty search_path makes format_type qualify every type outside
	// pg_catalog, so cached type names mean the same under any search_path.
	if _, err := tx.Exec(ctx, "SET LOCAL search_path = ''"); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	c := &Cache{Schemas: schemas, Tables: map[QI]*Table{}, Funcs: map[QI][]*Func{}}
	if err := loadTables(ctx, tx, c, schemas); err != nil {
		return nil, err
	}
	if err := loadConstraints(ctx, tx, c, schemas); err != nil {
		return nil, err
	}
	if err := loadUniques(ctx, tx, c, schemas); err != nil {
		return nil, err
	}
	if err := loadViewRelations(ctx, tx, c, schemas); err != nil {
		return nil, err
	}
	c.Link()
	if err := loadFuncs(ctx, tx, c, schemas); err != nil {
		return nil, err
	}
	if c.Reads, c.WritesResponse, err = loadReads(ctx, tx); err != nil {
		return nil, err
	}
	return c, tx.Commit(ctx)
}

const columnsSQL = `
SELECT c.oid::int8, n.nspname, c.relname, c.relkind::text, coalesce(pg_catalog.obj_description(c.oid, 'pg_class'), ''),
       a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
       coalesce(bt.typname, t.typname)::text, coalesce(bt.typcategory, t.typcategory)::text,
       NOT a.attnotnull, coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid), ''),
       a.attidentity <> '', a.attgenerated <> '', coalesce(pg_catalog.col_description(c.oid, a.attnum), ''),
       coalesce(CASE
         WHEN t.typbasetype <> 0 THEN pg_catalog.pg_get_expr(t.typdefaultbin, 0)
         WHEN a.attidentity = 'd' THEN format('nextval(%L)', pg_catalog.pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname))
         WHEN a.attgenerated <> '' THEN NULL
         ELSE pg_catalog.pg_get_expr(d.adbin, d.adrelid) END, '')
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
  LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
 WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
 ORDER BY n.nspname, c.relname, a.attnum`

func loadTables(ctx context.Context, tx pgx.Tx, c *Cache, schemas []string) error {
	rows, err := tx.Query(ctx, columnsSQL, schemas)
	if err != nil {
		return fmt.Errorf("schema: tables: %w", err)
	}
	defer rows.Close()
	var cur *Table
	for rows.Next() {
		var oid int64
		var sch, rel, kind, desc string
		col := &Column{}
		if err := rows.Scan(&oid, &sch, &rel, &kind, &desc, &col.Name, &col.Type, &col.Base, &col.Category,
			&col.Nullable, &col.Default, &col.Identity, &col.Generated, &col.Description, &col.InsertDefault); err != nil {
			return fmt.Errorf("schema: tables: %w", err)
		}
		if cur == nil || cur.Schema != sch || cur.Name != rel {
			cur = NewTable(sch, rel, kind, nil)
			cur.OID = oid
			cur.Description = desc
			c.Tables[QI{sch, rel}] = cur
		}
		cur.Columns = append(cur.Columns, col)
		cur.byName[col.Name] = col
	}
	return rows.Err()
}

const constraintsSQL = `
SELECT con.conname, con.contype::text, ns.nspname, cl.relname,
       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(n, o)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o),
       coalesce(fns.nspname, ''), coalesce(fcl.relname, ''),
       ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(n, o)
               JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o)
  FROM pg_catalog.pg_constraint con
  JOIN pg_catalog.pg_class cl ON cl.oid = con.conrelid
  JOIN pg_catalog.pg_namespace ns ON ns.oid = cl.relnamespace
  LEFT JOIN pg_catalog.pg_class fcl ON fcl.oid = con.confrelid
  LEFT JOIN pg_catalog.pg_namespace fns ON fns.oid = fcl.relnamespace
 WHERE con.contype IN ('p', 'f') AND ns.nspname = ANY($1)
 ORDER BY ns.nspname, cl.relname, con.conname`

func loadConstraints(ctx context.Context, tx pgx.Tx, c *Cache, schemas []string) error {
	rows, err := tx.Query(ctx, constraintsSQL, schemas)
	if err != nil {
		return fmt.Errorf("schema: constraints: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ, sch, rel, fsch, frel string
		var cols, fcols []string
		if err := rows.Scan(&name, &typ, &sch, &rel, &cols, &fsch, &frel, &fcols); err != nil {
			return fmt.Errorf("schema: constraints: %w", err)
		}
		t := c.Tables[QI{sch, rel}]
		if t == nil {
			continue
		}
		switch typ {
		case "p":
			t.PK = cols
		case "f":
			fk := &FK{Name: name, From: QI{sch, rel}, FromCols: cols, To: QI{fsch, frel}, ToCols: fcols}
			t.FKs = append(t.FKs, fk)
			if target := c.Tables[fk.To]; target != nil {
				target.Refs = append(target.Refs, fk)
			}
		}
	}
	return rows.Err()
}

const funcsSQL = `
SELECT p.oid::int8, n.nspname, p.proname, coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), ''),
       p.provolatile::text, p.proretset, pg_catalog.format_type(p.prorettype, NULL), rt.typtype::text,
       rt.typrelid::int8, coalesce(rtn.nspname, ''), coalesce(rtc.relname, ''),
       coalesce(p.proargnames, '{}')::text[], coalesce(p.proargmodes::text[], '{}'),
       ARRAY(SELECT pg_catalog.format_type(u.t, NULL) FROM unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) WITH ORDINALITY u(t, o) ORDER BY u.o),
       p.pronargs::int, p.pronargdefaults::int, p.provariadic <> 0, p.prorows::float8
  FROM pg_catalog.pg_proc p
  JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
  JOIN pg_catalog.pg_type rt ON rt.oid = p.prorettype
  LEFT JOIN pg_catalog.pg_class rtc ON rtc.oid = rt.typrelid
  LEFT JOIN pg_catalog.pg_namespace rtn ON rtn.oid = rtc.relnamespace
 WHERE n.nspname = ANY($1) AND p.prokind = 'f'
   AND p.prorettype NOT IN ('pg_catalog.trigger'::pg_catalog.regtype, 'pg_catalog.event_trigger'::pg_catalog.regtype)
 ORDER BY n.nspname, p.proname, p.oid`

const compositeColsSQL = `
SELECT a.attrelid::int8, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod),
       coalesce(bt.typname, t.typname)::text, coalesce(bt.typcategory, t.typcategory)::text
  FROM pg_catalog.pg_attribute a
  JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
  LEFT JOIN pg_catalog.pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
 WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attrelid, a.attnum`

func loadFuncs(ctx context.Context, tx pgx.Tx, c *Cache, schemas []string) error {
	rows, err := tx.Query(ctx, funcsSQL, schemas)
	if err != nil {
		return fmt.Errorf("schema: functions: %w", err)
	}
	type pending struct {
		f     *Func
		relid int64
	}
	var composites []pending
	var relids []int64
	for rows.Next() {
		f := &Func{}
		var typtype, rsch, rrel string
		var relid int64
		var names, modes, types []string
		var nargs, ndefaults int
		var variadic bool
		if err := rows.Scan(&f.OID, &f.Schema, &f.Name, &f.Description, &f.Volatility, &f.RetSet, &f.RetType, &typtype,
			&relid, &rsch, &rrel, &names, &modes, &types, &nargs, &ndefaults, &variadic, &f.Rows); err != nil {
			rows.Close()
			return fmt.Errorf("schema: functions: %w", err)
		}
		var outCols []*Column
		f.Params, outCols = funcParams(names, modes, types, ndefaults, variadic)
		switch {
		case f.RetType == "void":
			f.RetKind = "void"
		case typtype == "c" && relid != 0:
			f.RetKind = "composite"
			if rsch != "" {
				q := QI{rsch, rrel}
				if _, ok := c.Tables[q]; ok {
					f.RetRel = &q
				}
			}
			composites = append(composites, pending{f, relid})
			relids = append(relids, relid)
		case f.RetType == "record" && len(outCols) > 0:
			f.RetKind = "composite"
			f.RetCols = outCols
		default:
			f.RetKind = "scalar"
		}
		q := QI{f.Schema, f.Name}
		c.Funcs[q] = append(c.Funcs[q], f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("schema: functions: %w", err)
	}
	if len(relids) == 0 {
		return nil
	}
	byRel, err := loadCompositeCols(ctx, tx, relids)
	if err != nil {
		return err
	}
	for _, p := range composites {
		p.f.RetCols = byRel[p.relid]
	}
	return nil
}

// funcParams splits a function's arguments by mode: the input parameters
// (in, inout, variadic; the last ndefaults have defaults) and the output
// columns (out, inout, table).
func funcParams(names, modes, types []string, ndefaults int, variadic bool) (in []Param, outCols []*Column) {
	for i, typ := range types {
		mode := "i"
		if i < len(modes) {
			mode = modes[i]
		}
		name := ""
		if i < len(names) {
			name = names[i]
		}
		switch mode {
		case "i", "b", "v":
			in = append(in, Param{Name: name, Type: typ, Variadic: mode == "v"})
		}
		switch mode {
		case "o", "b", "t":
			outCols = append(outCols, &Column{Name: name, Type: typ, Nullable: true})
		}
	}
	for i := range in {
		if i >= len(in)-ndefaults {
			in[i].HasDefault = true
		}
	}
	if variadic && len(in) > 0 {
		in[len(in)-1].Variadic = true
	}
	return in, outCols
}

// loadCompositeCols reads the columns of the composite types functions
// return, by the type's relation.
func loadCompositeCols(ctx context.Context, tx pgx.Tx, relids []int64) (map[int64][]*Column, error) {
	colRows, err := tx.Query(ctx, compositeColsSQL, relids)
	if err != nil {
		return nil, fmt.Errorf("schema: composite types: %w", err)
	}
	defer colRows.Close()
	byRel := map[int64][]*Column{}
	for colRows.Next() {
		var relid int64
		col := &Column{Nullable: true}
		if err := colRows.Scan(&relid, &col.Name, &col.Type, &col.Base, &col.Category); err != nil {
			return nil, fmt.Errorf("schema: composite types: %w", err)
		}
		byRel[relid] = append(byRel[relid], col)
	}
	return byRel, colRows.Err()
}
