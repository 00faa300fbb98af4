package query

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// valuesRow is the VALUES list of a one-row insert, or ok=false when the
// row must go through json_populate_recordset after all.
//
// Reading one object through json_populate_recordset costs PostgreSQL a
// JSON parse, a record type lookup and a function scan per request; a
// VALUES list of bound values is planned once per column set and only
// bound afterwards. Each value is bound as the text
// json_populate_recordset would hand to the column type's input function
// (a string unescaped, a number or boolean as written, json and jsonb
// columns the JSON itself, null as NULL) and cast to the column's type, so
// the same values are accepted and the same errors raised.
//
// The conversions that differ are left to json_populate_recordset: an
// object or array for a column that is not json or jsonb (composites,
// arrays), a \u escape (PostgreSQL's JSON unescaping has rules of its own
// for \u0000 and lone surrogates), a type with a modifier (an explicit cast
// to varchar(n) truncates where the input function refuses), and an empty
// column list (DEFAULT VALUES).
func (b *Builder) valuesRow(t *schema.Table, g InsertGroup) (string, bool) {
	if g.Row == nil || g.Defaults || len(g.Columns) == 0 {
		return "", false
	}
	vals := make([]*string, len(g.Columns))
	for i, name := range g.Columns {
		col := t.Column(name)
		if col == nil || strings.Contains(col.Type, "(") {
			return "", false
		}
		raw, present := g.Row[name]
		if !present {
			continue // json_populate_recordset gives an absent key NULL
		}
		v, ok := valueText(raw, col.Base == "json" || col.Base == "jsonb")
		if !ok {
			return "", false
		}
		vals[i] = v
	}
	parts := make([]string, len(vals))
	for i, v := range vals {
		b.args = append(b.args, v)
		parts[i] = "$" + strconv.Itoa(len(b.args)) + "::" + t.Column(g.Columns[i]).Type
	}
	return "VALUES (" + strings.Join(parts, ", ") + ")", true
}

// valueText is one JSON value as its column's input text (nil for null).
func valueText(raw json.RawMessage, isJSON bool) (*string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, false
	}
	if string(raw) == "null" {
		return nil, true
	}
	if isJSON {
		s := string(raw)
		return &s, true
	}
	switch raw[0] {
	case '{', '[':
		return nil, false
	case '"':
		if bytes.Contains(raw, []byte(`\u`)) {
			return nil, false
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false
		}
		return &s, true
	}
	s := string(raw)
	return &s, true
}
