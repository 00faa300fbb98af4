package storage

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestListUnderRLS(t *testing.T) {
	t.Parallel()
	e := setup(t, nil, policies)
	for _, k := range []string{"b.txt", "a.txt", "dir/c.txt", "dir/deeper/d.txt"} {
		e.put(e.tokA, "private", e.userA+"/"+k, k, false).wantOK(t)
	}
	e.put(e.tokB, "private", e.userB+"/theirs.txt", "x", false).wantOK(t)

	names := func(r resp, key string) []string {
		t.Helper()
		r.wantOK(t)
		var out []map[string]any
		if key != "" {
			var m map[string]json.RawMessage
			_ = json.Unmarshal(r.body, &m)
			_ = json.Unmarshal(m[key], &out)
		} else {
			_ = json.Unmarshal(r.body, &out)
		}
		var ns []string
		for _, o := range out {
			ns = append(ns, o["name"].(string))
		}
		return ns
	}
	got := names(e.doJSON(http.MethodPost, "/object/list/private", e.tokA, map[string]any{"prefix": e.userA}), "")
	if want := []string{"a.txt", "b.txt", "dir"}; !equal(got, want) {
		t.Fatalf("v1: %v, want %v", got, want)
	}
	// B sees none of A's names, not even the folder.
	if got := names(e.doJSON(http.MethodPost, "/object/list/private", e.tokB, map[string]any{"prefix": ""}), ""); !equal(got, []string{e.userB}) {
		t.Fatalf("B's top level: %v", got)
	}
	got = names(e.doJSON(http.MethodPost, "/object/list/private", e.tokA,
		map[string]any{"prefix": e.userA + "/dir", "sortBy": map[string]string{"column": "name", "order": "desc"}}), "")
	if want := []string{"deeper", "c.txt"}; !equal(got, want) {
		t.Fatalf("v1 desc: %v, want %v", got, want)
	}
	r := e.doJSON(http.MethodPost, "/object/list-v2/private", e.tokA, map[string]any{"prefix": e.userA + "/", "with_delimiter": true})
	if got := names(r, "folders"); !equal(got, []string{e.userA + "/dir/"}) {
		t.Fatalf("v2 folders: %v", got)
	}
	if got := names(r, "objects"); !equal(got, []string{e.userA + "/a.txt", e.userA + "/b.txt"}) {
		t.Fatalf("v2 objects: %v", got)
	}
	// Pages of one, newest first, without the delimiter: all four keys once.
	var seen []string
	cursor := ""
	for range 10 {
		r := e.doJSON(http.MethodPost, "/object/list-v2/private", e.tokA, map[string]any{"prefix": e.userA + "/", "limit": 1,
			"cursor": cursor, "sortBy": map[string]string{"column": "created_at", "order": "desc"}})
		seen = append(seen, names(r, "objects")...)
		if cursor = r.field(t, "nextCursor"); cursor == "" {
			break
		}
	}
	want := []string{"dir/deeper/d.txt", "dir/c.txt", "a.txt", "b.txt"}
	for i := range want {
		want[i] = e.userA + "/" + want[i]
	}
	if !equal(seen, want) {
		t.Fatalf("v2 pages: %v, want %v", seen, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
