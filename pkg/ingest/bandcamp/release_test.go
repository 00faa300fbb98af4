package bandcamp_test

import (
	"errors"
	"net/http"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
)

func day(s string) time.Time {
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return d
}

func TestParseRelease(t *testing.T) {
	t.Parallel()
	preorderDate := fakebandcamp.Preorder.Date(time.Now())
	tests := []struct {
		name, host, path string
		want             bandcamp.Release
	}{
		{"album with JSON-LD", fakebandcamp.LabelHost, "/album/peat-and-static", bandcamp.Release{
			Type: "album", ID: 3100000003, Title: "Peat & Static", Artist: "Kestrel Array", Date: day("2025-06-20"),
			ImageURL: "https://f4.bcbits.com/img/a1100000003_2.jpg", Genres: []string{"electronic", "techno", "ambient"},
			AccountName: "Northmoor Records", AccountURL: "https://northmoor.bandcamp.com", Location: "Hebden Bridge, UK", PrimaryGenre: "electronic"}},
		{"pre-order", fakebandcamp.LabelHost, "/album/signal-drift", bandcamp.Release{
			Type: "album", ID: 3100000001, Title: "Signal Drift", Artist: "Kestrel Array", Date: preorderDate, Preorder: true,
			ImageURL: "https://f4.bcbits.com/img/a1100000001_2.jpg", Genres: []string{"electronic", "idm", "ambient"},
			AccountName: "Northmoor Records", AccountURL: "https://northmoor.bandcamp.com", Location: "Hebden Bridge, UK", PrimaryGenre: "electronic"}},
		{"no JSON-LD: attributes and markup", fakebandcamp.LabelHost, "/album/mill-chimney-dub", bandcamp.Release{
			Type: "album", ID: 3100000007, Title: "Mill Chimney Dub", Artist: "Heptonstall Sound System", Date: day("2023-11-17"),
			ImageURL: "https://f4.bcbits.com/img/a1100000007_2.jpg", Genres: []string{"dub", "electronic"},
			AccountName: "Northmoor Records", Location: "Hebden Bridge, UK"}},
		{"release hosted on an artist subdomain", fakebandcamp.ArtistSubHost, "/album/gritstone-echoes", bandcamp.Release{
			Type: "album", ID: 3100000005, Title: "Gritstone Echoes", Artist: "Orla Vance", Date: day("2024-06-14"),
			ImageURL: "https://f4.bcbits.com/img/a1100000005_2.jpg", Genres: []string{"ambient", "field recordings"},
			AccountName: "Orla Vance", AccountURL: "https://orlavance.bandcamp.com", Location: "Halifax, UK", PrimaryGenre: "ambient"}},
		{"standalone track", fakebandcamp.ArtistHost, "/track/spruce", bandcamp.Release{
			Type: "track", ID: 3200000001, Title: "Spruce", Artist: "Hollow Pine", Date: day("2022-02-11"),
			ImageURL: "https://f4.bcbits.com/img/a0919724444_2.jpg", Genres: []string{"folk", "acoustic"},
			AccountName: "Hollow Pine", AccountURL: "https://hollowpine.bandcamp.com", Location: "Duluth, Minnesota", PrimaryGenre: "folk"}},
		{"track within an album", fakebandcamp.ArtistHost, "/track/thaw", bandcamp.Release{
			Type: "track", ID: 3200000002, Title: "Thaw", Artist: "Hollow Pine", Date: day("2021-12-03"),
			ImageURL: "https://f4.bcbits.com/img/a1100000101_2.jpg", Genres: []string{"americana", "folk"},
			AccountName: "Hollow Pine", AccountURL: "https://hollowpine.bandcamp.com", Location: "Duluth, Minnesota", PrimaryGenre: "folk"}},
		{"custom domain", fakebandcamp.CustomDomain, "/album/estuary", bandcamp.Release{
			Type: "album", ID: 3100000301, Title: "Estuary", Artist: "Severn Bore Collective", Date: day("2024-10-25"),
			ImageURL: "https://f4.bcbits.com/img/a1100000301_2.jpg", Genres: []string{"experimental", "noise"},
			AccountName: "Tidewater Audio", AccountURL: "https://music.tidewater.example", Location: "Bristol, UK", PrimaryGenre: "experimental"}},
	}
	for _, tt := range tests {
		got, err := bandcamp.ParseRelease(page(t, tt.host, tt.path, http.StatusOK))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !got.Date.Equal(tt.want.Date) || !slices.Equal(got.Genres, tt.want.Genres) {
			t.Errorf("%s: date %v genres %q, want %v %q", tt.name, got.Date, got.Genres, tt.want.Date, tt.want.Genres)
		}
		got.Date, got.Genres, tt.want.Date, tt.want.Genres = time.Time{}, nil, time.Time{}, nil
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, *got, tt.want)
		}
	}
}

func TestParseReleaseRejects(t *testing.T) {
	t.Parallel()
	if _, err := bandcamp.ParseRelease(page(t, fakebandcamp.LabelHost, "/music", http.StatusOK)); !errors.Is(err, bandcamp.ErrNotRelease) {
		t.Errorf("music page: err = %v", err)
	}
	if _, err := bandcamp.ParseRelease(page(t, fakebandcamp.ChallengeHost, "/album/x", http.StatusOK)); !errors.Is(err, bandcamp.ErrChallenge) {
		t.Errorf("challenge: err = %v", err)
	}
	if _, err := bandcamp.ParseRelease(page(t, fakebandcamp.LabelHost, "/album/nope", http.StatusNotFound)); !errors.Is(err, bandcamp.ErrNotRelease) {
		t.Errorf("404 page: err = %v", err)
	}
}
