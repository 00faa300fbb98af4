package rest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
)

// jsonToCSV renders a JSON array of objects as CSV with a header row in
// the objects' key order. Strings are written as is, null as an empty
// field, anything else as its JSON text.
func jsonToCSV(body []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errors.New("rest: csv: body is not an array")
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var header []string
	for dec.More() {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, errors.New("rest: csv: element is not an object")
		}
		var keys, vals []string
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			keys = append(keys, kt.(string))
			var s string
			switch {
			case bytes.Equal(raw, []byte("null")):
			case len(raw) > 0 && raw[0] == '"':
				_ = json.Unmarshal(raw, &s)
			default:
				s = string(raw)
			}
			vals = append(vals, s)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		if header == nil {
			header = keys
			if err := w.Write(header); err != nil {
				return nil, err
			}
		}
		if err := w.Write(vals); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// csvToJSON turns a CSV body with a header row into a JSON array of
// objects; an empty field and the text NULL become null.
func csvToJSON(body []byte) ([]byte, error) {
	r := csv.NewReader(bytes.NewReader(body))
	header, err := r.Read()
	if err != nil {
		return nil, invalidBody()
	}
	var rows []map[string]any
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil || len(rec) != len(header) {
			return nil, invalidBody()
		}
		m := make(map[string]any, len(rec))
		for i, h := range header {
			if rec[i] == "" || rec[i] == "NULL" {
				m[h] = nil
			} else {
				m[h] = rec[i]
			}
		}
		rows = append(rows, m)
	}
	if rows == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(rows)
}
