package bandcamp_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares v, as indented JSON, with testdata/name.golden.json.
// With -update it writes the file instead; read the diff before committing.
func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n%s", name, file, got)
	}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGoldenAccountPages parses one hand-written page per account page
// shape Bandcamp serves.
func TestGoldenAccountPages(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"music-current", "music-stub-only", "music-unknown", "music-index", "music-old"} {
		t.Run(name, func(t *testing.T) {
			a, err := bandcamp.ParseAccount(fixture(t, name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, a)
		})
	}
}

// TestGoldenReleasePages parses one hand-written page per release page shape.
func TestGoldenReleasePages(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"release-2020", "release-old"} {
		t.Run(name, func(t *testing.T) {
			r, err := bandcamp.ParseRelease(fixture(t, name+".html"))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, name, r)
		})
	}
}

// The points of each shape that once went wrong, checked by name so that a
// careless -update cannot bless them.
func TestShapesThatWentWrong(t *testing.T) {
	t.Parallel()
	stub, err := bandcamp.ParseAccount(fixture(t, "music-stub-only.html"))
	if err != nil || stub.Release != nil || len(stub.Items) != 0 || stub.Unreadable != "" {
		t.Errorf("stub-only page = %+v, %v; want an account without releases, no release made of the stub", stub, err)
	}
	if _, err := bandcamp.ParseRelease(fixture(t, "music-stub-only.html")); !errors.Is(err, bandcamp.ErrNotRelease) {
		t.Errorf("stub-only page as a release: err = %v, want ErrNotRelease", err)
	}
	unknown, err := bandcamp.ParseAccount(fixture(t, "music-unknown.html"))
	if err != nil || !strings.Contains(unknown.Unreadable, "links to 2 releases") || len(unknown.Items) != 0 {
		t.Errorf("unknown layout = %+v, %v; want it reported unreadable", unknown, err)
	}
	index, err := bandcamp.ParseAccount(fixture(t, "music-index.html"))
	if err != nil || len(index.Items) != 4 || index.Items[1].Artist != "Ouse Washes" || index.Items[3].Artist != "Fenland Recordings" ||
		index.Items[2].ImageURL != "https://f4.bcbits.com/img/a1400000003_2.jpg" || index.Items[1].Type != "track" {
		t.Errorf("index page = %+v, %v", index, err)
	}
	old, err := bandcamp.ParseAccount(fixture(t, "music-old.html"))
	if err != nil || old.Name != "Dyke Road Sound" || old.ID != 2200000005 || old.Declared != "https://dykeroad.bandcamp.com" ||
		len(old.Items) != 2 || old.Items[0].ID != 3500000001 || old.Items[1].Href != "/album/west-pier" {
		t.Errorf("old account page = %+v, %v", old, err)
	}
	// Without the BandData script, the grid and the page's name still make
	// it an account.
	noBand := regexp.MustCompile(`(?s)<script type="text/javascript">.*?</script>`).ReplaceAll(fixture(t, "music-old.html"), nil)
	if a, err := bandcamp.ParseAccount(noBand); err != nil || a.Name != "Dyke Road Sound" || a.ID != 0 || len(a.Items) != 2 {
		t.Errorf("old account page without BandData = %+v, %v", a, err)
	}
	// A release page whose only date is older pages' microdata.
	micro := []byte(`<html><head><meta property="og:type" content="album"><meta property="og:title" content="Shingle, by Dunlin"></head>
		<body><div id="name-section"><h2 class="trackTitle">Shingle</h2></div><meta itemprop="datePublished" content="20140523"></body></html>`)
	if r, err := bandcamp.ParseRelease(micro); err != nil || r.Title != "Shingle" || r.Artist != "Dunlin" || r.Date.Format("2006-01-02") != "2014-05-23" {
		t.Errorf("microdata-dated release = %+v, %v", r, err)
	}
	r2020, err := bandcamp.ParseRelease(fixture(t, "release-2020.html"))
	if err != nil || r2020.Date.Format("2006-01-02") != "2020-07-17" || r2020.ImageURL != "https://f4.bcbits.com/img/a1700000001_2.jpg" ||
		strings.Join(r2020.Genres, "|") != "electronic|acid|techno|hip-hop/rap|trance" {
		t.Errorf("2020 release = %+v, %v; want the tralbum date, the art id's cover, split keywords without the city", r2020, err)
	}
	old2016, err := bandcamp.ParseRelease(fixture(t, "release-old.html"))
	if err != nil || old2016.Title != "Groundswell" || old2016.Artist != "Tide's End" || old2016.ID != 3600000001 ||
		old2016.Date.Format("2006-01-02") != "2016-03-18" || old2016.AccountName != "Tide's End" {
		t.Errorf("old release = %+v, %v", old2016, err)
	}
	if _, err := bandcamp.ParseRelease(fixture(t, "release-no-date.html")); !errors.Is(err, bandcamp.ErrUnreadable) {
		t.Errorf("release without a date: err = %v, want ErrUnreadable", err)
	}
	// /music redirected to an only release that cannot be read: the account
	// is known, its releases are not.
	if a, err := bandcamp.ParseAccount(fixture(t, "release-no-date.html")); err != nil || a.Unreadable == "" || a.Release != nil {
		t.Errorf("single release without a date = %+v, %v", a, err)
	}
}

// FuzzParse: no page, however broken, makes the parsers panic.
func FuzzParse(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if a, err := bandcamp.ParseAccount(body); err == nil && a.Name == "" {
			t.Error("an account without a name")
		}
		if r, err := bandcamp.ParseRelease(body); err == nil && (r.Title == "" || r.Date.IsZero()) {
			t.Errorf("a release without a title or date: %+v", r)
		}
	})
}
