package pgchanges

import (
	"encoding/json"
	"fmt"
)

// change is one committed row change as it travels on the Bus: the text
// values the WAL carried, plus what a gateway needs to route and check it
// without asking the catalog again.
type change struct {
	Schema  string   `json:"s"`
	Table   string   `json:"t"`
	Kind    string   `json:"k"`           // INSERT, UPDATE or DELETE
	Commit  string   `json:"c"`           // commit time, UTC, millisecond precision
	Xid     uint32   `json:"x,omitempty"` // the transaction, for the RLS check's visibility wait
	Columns []column `json:"cols"`
	New     []value  `json:"new,omitempty"` // INSERT, UPDATE
	Old     []value  `json:"old,omitempty"` // UPDATE (when the WAL has it), DELETE
	// OldKeyOnly says Old carries only the replica identity key (the
	// table is not REPLICA IDENTITY FULL); other columns are Missing.
	OldKeyOnly bool `json:"oko,omitempty"`
	// RLS is pg_class.relrowsecurity when the leader decoded the change.
	RLS bool `json:"rls,omitempty"`
	// TooLarge says the values were dropped (all but the primary key)
	// because the row exceeded maxRecordBytes.
	TooLarge bool `json:"big,omitempty"`
}

// column is one table column as realtime-js's "columns" lists it.
type column struct {
	Name string `json:"n"`
	Type string `json:"t"`           // pg_type.typname: int4, text, _int8, …
	Key  bool   `json:"k,omitempty"` // part of the primary key
}

// value is one column's text value. Null is SQL NULL; Missing is a value
// the WAL does not carry (an unchanged TOAST value, a non-key column of a
// key-only old tuple).
type value struct {
	Text    string
	Null    bool
	Missing bool
}

// MarshalJSON writes a string, null, or false for Missing.
func (v value) MarshalJSON() ([]byte, error) {
	switch {
	case v.Missing:
		return []byte("false"), nil
	case v.Null:
		return []byte("null"), nil
	}
	return json.Marshal(v.Text)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (v *value) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		*v = value{Null: true}
		return nil
	case "false":
		*v = value{Missing: true}
		return nil
	}
	v.Null, v.Missing = false, false
	return json.Unmarshal(b, &v.Text)
}

// maxRecordBytes is the largest raw change sent with its values, as
// Supabase's max_record_bytes (1 MiB): above it, subscribers get the
// primary key and the error "Error 413: Payload Too Large".
const maxRecordBytes = 1 << 20

// encode serialises c for the Bus, dropping non-key values of an
// oversized row.
func (c *change) encode() ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil || len(b) <= maxRecordBytes {
		return b, err
	}
	c.TooLarge = true
	for _, vals := range [][]value{c.New, c.Old} {
		for i := range vals {
			if i < len(c.Columns) && !c.Columns[i].Key {
				vals[i] = value{Missing: true}
			}
		}
	}
	return json.Marshal(c)
}

func decodeChange(b []byte) (*change, error) {
	var c change
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("pgchanges: decode change: %w", err)
	}
	if len(c.New) > 0 && len(c.New) != len(c.Columns) || len(c.Old) > 0 && len(c.Old) != len(c.Columns) {
		return nil, fmt.Errorf("pgchanges: decode change: %d columns, %d new and %d old values",
			len(c.Columns), len(c.New), len(c.Old))
	}
	return &c, nil
}

// keyValues returns the primary key columns and their values in row, or
// ok=false when the table has no primary key or a key value is missing.
func (c *change) keyValues(row []value) (names, vals []string, ok bool) {
	for i, col := range c.Columns {
		if !col.Key {
			continue
		}
		if i >= len(row) || row[i].Null || row[i].Missing {
			return nil, nil, false
		}
		names = append(names, col.Name)
		vals = append(vals, row[i].Text)
	}
	return names, vals, len(names) > 0
}
