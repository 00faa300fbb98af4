package pgchanges

import (
	"encoding/json"
	"math/big"
	"strings"
	"time"
)

// jsonValue turns a column's text output into the JSON value Supabase's
// Realtime sends (to_jsonb of the typed value): numbers and booleans as
// JSON numbers and booleans, json/jsonb as they are, timestamps in ISO
// 8601 with a T, one-dimensional arrays as JSON arrays; anything else as
// its text. PostgreSQL's text output is taken with DateStyle ISO and
// TimeZone UTC (set on the replication connection).
func jsonValue(typ, text string) []byte {
	if strings.HasPrefix(typ, "_") {
		if elems, ok := parseArray(text); ok {
			return arrayJSON(typ[1:], elems)
		}
		return quote(text)
	}
	switch typ {
	case "int2", "int4", "int8", "oid", "float4", "float8", "numeric":
		if isJSONNumber(text) {
			return []byte(text)
		}
	case "bool":
		switch text {
		case "t":
			return []byte("true")
		case "f":
			return []byte("false")
		}
	case "json", "jsonb":
		if json.Valid([]byte(text)) {
			return []byte(text)
		}
	case "timestamptz":
		return quote(isoTimestamp(text, true))
	case "timestamp":
		return quote(isoTimestamp(text, false))
	}
	return quote(text)
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// isJSONNumber rejects NaN, Infinity and anything else JSON cannot carry
// as a number; those go out as strings.
func isJSONNumber(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && s != "" && s[0] != '"'
}

// isoTimestamp rewrites "2026-11-27 20:00:00.5+00" as
// "2026-11-27T20:00:00.5+00:00" (to_jsonb's form).
func isoTimestamp(s string, zoned bool) string {
	if len(s) < 11 || s[10] != ' ' {
		return s // infinity, -infinity, BC dates
	}
	s = s[:10] + "T" + s[11:]
	if zoned {
		if i := strings.LastIndexAny(s, "+-"); i > 10 && len(s)-i == 3 {
			s += ":00"
		}
	}
	return s
}

func arrayJSON(elemType string, elems []*string) []byte {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		if e == nil {
			b.WriteString("null")
		} else {
			b.Write(jsonValue(elemType, *e))
		}
	}
	b.WriteByte(']')
	return []byte(b.String())
}

// parseArray splits a one-dimensional array's text output ({a,"b c",NULL})
// into its elements; nil is NULL. Nested or bounded arrays report !ok.
func parseArray(s string) ([]*string, bool) {
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, false
	}
	body := s[1 : len(s)-1]
	out := []*string{}
	if body == "" {
		return out, true
	}
	for i := 0; i <= len(body); {
		if i < len(body) && body[i] == '{' {
			return nil, false
		}
		var elem strings.Builder
		quoted := i < len(body) && body[i] == '"'
		if quoted {
			i++
			for ; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' && i+1 < len(body) {
					i++
				}
				elem.WriteByte(body[i])
			}
			i++ // closing quote
		} else {
			for ; i < len(body) && body[i] != ','; i++ {
				elem.WriteByte(body[i])
			}
		}
		e := elem.String()
		if !quoted && e == "NULL" {
			out = append(out, nil)
		} else {
			out = append(out, &e)
		}
		if i < len(body) && body[i] != ',' {
			return nil, false
		}
		i++
	}
	return out, true
}

// compare orders a row value and a filter value of column type typ:
// numerically for numbers, by instant for timestamps and dates, as
// booleans, case-insensitively for uuids, and byte-wise otherwise (the
// order of the C collation). ok is false when either side does not parse
// as the type, and the filter then does not match.
func compare(typ, a, b string) (int, bool) {
	switch typ {
	case "int2", "int4", "int8", "oid", "float4", "float8", "numeric":
		x, okx := new(big.Rat).SetString(a)
		y, oky := new(big.Rat).SetString(b)
		if !okx || !oky {
			if a == b { // NaN = NaN, Infinity = Infinity
				return 0, true
			}
			return 0, false
		}
		return x.Cmp(y), true
	case "bool":
		x, okx := parseBool(a)
		y, oky := parseBool(b)
		if !okx || !oky {
			return 0, false
		}
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	case "timestamptz", "timestamp", "date":
		x, okx := parseTime(a)
		y, oky := parseTime(b)
		if !okx || !oky {
			return 0, false
		}
		return x.Compare(y), true
	case "uuid":
		return strings.Compare(strings.ToLower(a), strings.ToLower(b)), true
	}
	return strings.Compare(a, b), true
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "t", "true", "y", "yes", "on", "1":
		return true, true
	case "f", "false", "n", "no", "off", "0":
		return false, true
	}
	return false, false
}

// timeLayouts are the forms PostgreSQL prints (ISO) and clients write.
var timeLayouts = []string{
	"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999Z07",
	"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07",
	"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02",
}

// parseTime reads a timestamp or date. One without a zone is read as UTC:
// for timestamptz that is the replication session's TimeZone, and for
// timestamp and date both sides are zone-less alike.
func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
