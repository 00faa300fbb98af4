package pgchanges

import (
	"bytes"
	"encoding/json"
)

// payload builds the data of a "postgres_changes" event as Supabase's
// Realtime sends it and realtime-js reads it (RealtimeChannel's
// _getPayloadRecords): record for INSERT/UPDATE, old_record for
// UPDATE/DELETE, columns to type them, errors null or a list of strings.
// It is built once per change and shared by every receiver.
func (c *change) payload() []byte {
	var b bytes.Buffer
	b.WriteString(`{"schema":`)
	writeString(&b, c.Schema)
	b.WriteString(`,"table":`)
	writeString(&b, c.Table)
	b.WriteString(`,"commit_timestamp":`)
	writeString(&b, c.Commit)
	b.WriteString(`,"eventType":`)
	writeString(&b, c.Kind)
	b.WriteString(`,"type":`)
	writeString(&b, c.Kind)
	b.WriteString(`,"columns":[`)
	for i, col := range c.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":`)
		writeString(&b, col.Name)
		b.WriteString(`,"type":`)
		writeString(&b, col.Type)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if c.Kind != "DELETE" {
		b.WriteString(`,"record":`)
		c.writeRecord(&b, c.New, false)
	}
	if c.Kind != "INSERT" {
		b.WriteString(`,"old_record":`)
		// A deleted row cannot be checked against RLS any more, so with
		// RLS on only its primary key goes out (Supabase's rule).
		c.writeRecord(&b, c.Old, c.Kind == "DELETE" && c.RLS)
	}
	if c.TooLarge {
		b.WriteString(`,"errors":["Error 413: Payload Too Large"]}`)
	} else {
		b.WriteString(`,"errors":null}`)
	}
	return b.Bytes()
}

// writeRecord writes row as a JSON object in column order, leaving out
// values the WAL did not carry (and, with keyOnly, non-key columns).
func (c *change) writeRecord(b *bytes.Buffer, row []value, keyOnly bool) {
	b.WriteByte('{')
	n := 0
	for i, v := range row {
		col := c.Columns[i]
		if v.Missing || keyOnly && !col.Key {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		writeString(b, col.Name)
		b.WriteByte(':')
		if v.Null {
			b.WriteString("null")
			continue
		}
		b.Write(jsonValue(col.Type, v.Text))
	}
	b.WriteByte('}')
}

func writeString(b *bytes.Buffer, s string) {
	out, _ := json.Marshal(s) // a string always marshals
	b.Write(out)
}
