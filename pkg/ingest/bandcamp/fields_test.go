package bandcamp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
)

func TestParseDate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"05 Jan 2024 00:00:00 GMT":  "2024-01-05",
		"5 Jan 2024 00:00:00 GMT":   "2024-01-05",
		"07 Apr 2023 08:10:36 GMT":  "2023-04-07",
		"14 Sep 1979 00:00:00 GMT":  "1979-09-14",
		"2024-01-05T23:30:00-02:00": "2024-01-06",
	} {
		got, ok := bandcamp.ParseDate(in)
		if !ok || got.Format(time.DateOnly) != want || got.Location() != time.UTC {
			t.Errorf("ParseDate(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
	if _, ok := bandcamp.ParseDate("soon"); ok {
		t.Error("ParseDate(soon) succeeded")
	}
	for in, want := range map[string]string{
		"released September 14, 2013":           "2013-09-14",
		"Released 14 September 2013 ℗ Somebody": "2013-09-14",
		"releases March 3, 2031":                "2031-03-03",
	} {
		got, ok := bandcamp.ProseDate(in)
		if !ok || got.Format(time.DateOnly) != want {
			t.Errorf("ProseDate(%q) = %v, %v; want %s", in, got, ok, want)
		}
	}
}

func TestImages(t *testing.T) {
	t.Parallel()
	if got := bandcamp.ArtURL(919724444); got != "https://f4.bcbits.com/img/a0919724444_2.jpg" {
		t.Errorf("ArtURL = %q", got)
	}
	for in, want := range map[string]string{
		"https://f4.bcbits.com/img/a0123456789_10.jpg": "https://f4.bcbits.com/img/a0123456789_2.jpg",
		"http://f4.bcbits.com/img/a123_5.jpg":          "https://f4.bcbits.com/img/a123_2.jpg",
		"https://f4.bcbits.com/img/0012345678_16.png":  "https://f4.bcbits.com/img/0012345678_2.png",
		"https://example.com/img/a123_10.jpg":          "https://example.com/img/a123_10.jpg",
	} {
		if got := bandcamp.Resize(in); got != want {
			t.Errorf("Resize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTags(t *testing.T) {
	t.Parallel()
	got := bandcamp.ReleaseGenres([]string{"Electronic", "Techno", "techno", "Techno.", "hip-hop/rap", " ambient\u200b ", "Leeds"}, "Leeds, UK")
	if want := []string{"electronic", "techno", "hip-hop/rap", "ambient"}; !slices.Equal(got, want) {
		t.Errorf("ReleaseGenres = %q, want %q", got, want)
	}
	for in, want := range map[string]string{
		"https://bandcamp.com/discover/electronic": "electronic",
		"https://bandcamp.com/tag/hip-hop-rap":     "hip-hop/rap",
		"https://bandcamp.com/discover/r-b-soul":   "r&b/soul",
		"https://bandcamp.com/discover/post-punk":  "post-punk",
		"https://bandcamp.com/somebody":            "",
		"":                                         "",
	} {
		if got := bandcamp.GenreFromURL(in); got != want {
			t.Errorf("GenreFromURL(%q) = %q, want %q", in, got, want)
		}
	}
	tags := bandcamp.LabelTags("Electronic", "Hebden Bridge, UK", [][]string{
		{"ambient", "drone"}, {"techno", "ambient"}, {"electronic", "ambient", "techno"}, {"dub"},
	})
	if want := []string{"electronic", "ambient", "techno", "drone", "dub", "hebden bridge"}; !slices.Equal(tags, want) {
		t.Errorf("LabelTags = %q, want %q", tags, want)
	}
	var many [][]string
	for _, g := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"} {
		many = append(many, []string{g})
	}
	if tags := bandcamp.LabelTags("", "Leeds, UK", many); len(tags) != 8 || tags[7] != "leeds" {
		t.Errorf("LabelTags with many genres = %q, want 7 genres and the city", tags)
	}
}
