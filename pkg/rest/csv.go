package rest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
)

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
