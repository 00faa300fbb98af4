package bandcamp

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestJSObject(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{a: 1, "b": 'two', c: null}`, `{"a":1,"b":"two","c":null}`},
		{`{url: "http://x.bandcamp.com" + "/album/y", n: 2}`, `{"url":"http://x.bandcamp.com/album/y","n":2}`},
		{"{ // a comment\n item_type: \"album\", // xxx: note\n id: 3000000001 /* block */ }", `{"item_type":"album","id":3000000001}`},
		{`{a: [1, 2, ], b: {c: true,},}`, `{"a":[1,2],"b":{"c":true}}`},
		{`{s: 'it\'s', d: "say \"hi\"", u: "\u00e9\x41", e: "a\/b"}`, `{"s":"it's","d":"say \"hi\"","u":"éA","e":"a/b"}`},
		{`{x: siteroot + "/a", y: f(1, {z: 2}), z: 3}`, `{"x":null,"y":null,"z":3}`},
		{`{x: "a" + b, y: 1 ? 2 : 3, z: undefined, w: -1.5e3, h: 0x1F, f: .5}`, `{"x":null,"y":null,"z":null,"w":-1500,"h":31,"f":0.5}`},
		{`{big: 3000000000000000001}`, `{"big":3000000000000000001}`},
		{"{t: `template ${x}`, k: 1}", `{"t":null,"k":1}`},
		{`{"astral": "\ud83c\udfb5"}`, `{"astral":"🎵"}`},
	}
	for _, tt := range tests {
		got, ok := jsObject(tt.in)
		if !ok {
			t.Errorf("jsObject(%s) failed", tt.in)
			continue
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Errorf("jsObject(%s) = %s: %v", tt.in, got, err)
			continue
		}
		_ = json.Unmarshal([]byte(tt.want), &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("jsObject(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{``, `[1]`, `{a: 1`, `{a 1}`, `{a: "unterminated}`, `{a: 'line` + "\n" + `break'}`, `{: 1}`} {
		if got, ok := jsObject(bad); ok {
			t.Errorf("jsObject(%q) = %s, want failure", bad, got)
		}
	}
}

func TestScriptVar(t *testing.T) {
	t.Parallel()
	scripts := []string{
		`var siteroot = "https://bandcamp.com"; if (x) { y(); }`,
		"\n    var TralbumData = {\n        id: 5,\n        current: {\"title\":\"T\"},\n    };\n    var BandData = {id: 7, name: 'B'};",
		`window.EmbedData = {artist: "E"};`,
	}
	for name, want := range map[string]string{
		"TralbumData": `{"id":5,"current":{"title":"T"}}`,
		"BandData":    `{"id":7,"name":"B"}`,
		"EmbedData":   `{"artist":"E"}`,
	} {
		if got := scriptVar(scripts, name); string(got) != want {
			t.Errorf("scriptVar(%s) = %s, want %s", name, got, want)
		}
	}
	if got := scriptVar(scripts, "Missing"); got != nil {
		t.Errorf("scriptVar(Missing) = %s", got)
	}
	// "NotTralbumData" must not pass for TralbumData.
	if got := scriptVar([]string{`var NotTralbumData = {id: 1};`}, "TralbumData"); got != nil {
		t.Errorf("matched a longer name: %s", got)
	}
}

// FuzzJSObject: whatever a page holds, jsObject neither panics nor hangs,
// and what it returns is JSON.
func FuzzJSObject(f *testing.F) {
	for _, s := range []string{`{a: 1}`, `{url: "a" + 'b', c: [1, {d: null}], e: f(1)}`, "{a: `x`, // c\n}", `{a: "\u12"}`, `{a: 1 b}`, `{"a": [,]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out, ok := jsObject(s); ok && !json.Valid(out) {
			t.Errorf("jsObject(%q) = %q, not JSON", s, out)
		}
	})
}

// A field of an unexpected type costs that field, not the record.
func TestLenientRecords(t *testing.T) {
	t.Parallel()
	var tr tralbumData
	if err := json.Unmarshal([]byte(`{"id":"3600000001","item_type":"album","artist":null,"art_id":{"x":1},
		"album_release_date":false,"album_is_preorder":0,"is_preorder":1,"current":{"title":"T","release_date":"18 Mar 2016 00:00:00 GMT"}}`), &tr); err != nil {
		t.Fatal(err)
	}
	if tr.ID != 3600000001 || tr.ItemType != "album" || tr.Artist != "" || tr.ArtID != 0 || tr.AlbumReleaseDate != "" ||
		tr.AlbumIsPreorder || !tr.IsPreorder || tr.Current.Title != "T" || tr.Current.ReleaseDate == "" {
		t.Errorf("decoded %+v", tr)
	}
	for in, want := range map[string]bool{`true`: true, `"true"`: true, `1`: true, `0`: false, `null`: false, `false`: false, `"no"`: false, `[]`: false} {
		var f flag
		if err := json.Unmarshal([]byte(in), &f); err != nil || bool(f) != want {
			t.Errorf("flag %s = %v, %v; want %v", in, f, err, want)
		}
	}
}
