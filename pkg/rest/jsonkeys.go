package rest

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// objectKeys returns the distinct top-level keys of body, sorted, and
// whether body is one valid JSON object. A call needs only its argument
// names, to resolve the function; decoding the body into a map to get them
// copied every value and was about half of reading a call's arguments
// (docs/performance.md). encoding/json gives an object's keys only by
// decoding it, or token by token through a Decoder that allocates for
// every value too, hence this walk: json.Valid checks the whole body
// first, so the walk only finds where tokens end. A key is
// decoded exactly as json.Unmarshal decodes it (escapes, invalid UTF-8).
func objectKeys(body []byte) ([]string, bool) {
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' || !json.Valid(body) {
		return nil, false
	}
	var keys []string
	i = skipSpace(body, i+1)
	for body[i] != '}' {
		if body[i] == ',' {
			i = skipSpace(body, i+1)
		}
		end := stringEnd(body, i)
		keys = append(keys, jsonKey(body[i:end]))
		i = skipSpace(body, end) // at ':'
		i = skipSpace(body, valueEnd(body, skipSpace(body, i+1)))
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

// jsonKey is the string a quoted JSON key stands for.
func jsonKey(quoted []byte) string {
	raw := quoted[1 : len(quoted)-1]
	if !slices.Contains(raw, '\\') && utf8.Valid(raw) {
		return string(raw)
	}
	var k string
	_ = json.Unmarshal(quoted, &k) // valid: json.Valid passed
	return k
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts at b[i] ('"').
func stringEnd(b []byte, i int) int {
	for i++; b[i] != '"'; i++ {
		if b[i] == '\\' {
			i++ // the escaped byte; \uXXXX's digits are plain bytes
		}
	}
	return i + 1
}

// valueEnd is the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
