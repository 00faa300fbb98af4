package rest

import (
	"encoding/json"
	"slices"
	"testing"
)

// keysByMap is what readRPCArgs did before objectKeys: decode into a map.
func keysByMap(body []byte) ([]string, bool) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
		return nil, false
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, true
}

var objectKeysCases = []string{
	`{}`,
	` { } `,
	`{"user_id":"5f0c","page_size":9,"page":1}`,
	`{"b":1,"a":2,"b":3}`,
	`{"a":{"x":{"y":[1,{"z":"}"}]}},"b":[[],[{}]],"c":"]\"}"}`,
	"{\n\t\"a\" :\r\n true , \"b\":false,\"c\":null,\"d\":-1.5e+3}",
	`{"\u0061b":1,"a\"b":2,"a\\":3,"\ud83c\udfb5":4}`,
	"{\"caf\xc3\xa9\":1,\"bad\xff\":2}",
	`{"a":"x\\"}`,
	`{"a":1,}`,
	`{"a" 1}`,
	`{"a":1`,
	`{"a":1}}`,
	`[{"a":1}]`,
	`"a"`,
	`null`,
	``,
	`{"a":tru}`,
	`{'a':1}`,
}

// TestObjectKeysAgreesWithDecoding: the walk finds exactly the keys, and
// refuses exactly the bodies, that decoding into a map does.
func TestObjectKeysAgreesWithDecoding(t *testing.T) {
	for _, c := range objectKeysCases {
		got, ok := objectKeys([]byte(c))
		want, wantOK := keysByMap([]byte(c))
		if ok != wantOK || !slices.Equal(got, want) {
			t.Errorf("objectKeys(%q) = %q, %v; decoding gives %q, %v", c, got, ok, want, wantOK)
		}
	}
	if got, _ := objectKeys([]byte(`{"b":1,"a":{"c":2},"b":3}`)); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("nested and repeated keys: got %q, want [a b]", got)
	}
}

func FuzzObjectKeys(f *testing.F) {
	for _, c := range objectKeysCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, ok := objectKeys(body)
		want, wantOK := keysByMap(body)
		if ok != wantOK || !slices.Equal(got, want) {
			t.Errorf("objectKeys(%q) = %q, %v; decoding gives %q, %v", body, got, ok, want, wantOK)
		}
	})
}
