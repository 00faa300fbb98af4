package rest

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// put is PUT: a single-row upsert. As with PostgREST, the filters must be
// exactly the primary key columns with eq, the body one row whose primary
// key values are the filtered ones; it becomes an INSERT … ON CONFLICT
// (primary key) DO UPDATE of the body's columns.
func (a *API) put(c *echo.Context, rc *reqCtx, t *schema.Table, req *query.Request) error {
	root := req.Root()
	if root.Limit != nil || root.Offset != nil || rc.r.Header.Get("Range") != "" {
		return apierr.New(http.StatusBadRequest, pgrst.CodePutRange, "Range header and limit/offset querystring parameters are not allowed for PUT")
	}
	want, ok := putKey(t, root)
	if !ok {
		return apierr.New(http.StatusMethodNotAllowed, pgrst.CodePutFilters, "Filters must include all and only primary key columns with 'eq' operators")
	}
	body, err := a.readBody(c)
	if err != nil {
		return err
	}
	rows, _, err := decodeRows(body)
	if err != nil {
		return err
	}
	if len(rows) != 1 {
		return putMismatch()
	}
	row := rows[0]
	for col, v := range want {
		raw, present := row[col]
		if !present || jsonScalarText(raw) != v {
			return putMismatch()
		}
	}
	one, err := json.Marshal([]map[string]json.RawMessage{row})
	if err != nil {
		return invalidBody()
	}
	req.OnConflict = nil
	o := a.mutateOpts(rc)
	groups := []query.InsertGroup{{Columns: sortedKeys(row), Body: string(one), Row: row}}
	st, err := a.builder(rc).Insert(t, req, groups, "merge", o)
	if err != nil {
		return err
	}
	// 201 when the row was created, 200 (204 for return=minimal) when it
	// was updated: respondWrite reads which from the statement.
	return a.runWrite(c, rc, t, st, o, http.StatusCreated)
}

func putMismatch() *apierr.Error {
	return apierr.New(http.StatusBadRequest, pgrst.CodePutMismatch, "Payload values do not match URL in primary key column(s)")
}

// putKey returns the primary key values the root's filters name, when
// they are exactly one plain eq per primary key column.
func putKey(t *schema.Table, n *query.Node) (map[string]string, bool) {
	if len(t.PK) == 0 || len(n.Conds) != len(t.PK) {
		return nil, false
	}
	vals := map[string]string{}
	for _, c := range n.Conds {
		f := c.Filter
		if f == nil || f.Negate || f.Op != "eq" || f.Quant != "" || len(f.Field.Path) > 0 || !contains(t.PK, f.Field.Name) {
			return nil, false
		}
		if _, dup := vals[f.Field.Name]; dup {
			return nil, false
		}
		vals[f.Field.Name] = f.Value
	}
	return vals, true
}

// jsonScalarText is a JSON scalar as it would appear in a URL filter: a
// string's contents, a number's or boolean's literal; null and containers
// never match.
func jsonScalarText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "\x00"
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "\x00"
		}
		return s
	case '{', '[', 'n':
		return "\x00"
	}
	return string(raw)
}
