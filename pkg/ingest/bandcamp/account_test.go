package bandcamp_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
	"github.com/labelbase/labelbase/pkg/ingest/fakebandcamp"
)

// page fetches a fixture from the fake and checks its status.
func page(t *testing.T, host, path string, status int) []byte {
	t.Helper()
	rec := fakebandcamp.Fetch(host, path)
	if rec.Code != status {
		t.Fatalf("%s%s: status %d, want %d", host, path, rec.Code, status)
	}
	return rec.Body.Bytes()
}

func TestParseAccountLabel(t *testing.T) {
	t.Parallel()
	a, err := bandcamp.ParseAccount(page(t, fakebandcamp.LabelHost, "/music", http.StatusOK))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "Northmoor Records" || !a.IsLabel || a.ID != 2100000001 || a.Location != "Hebden Bridge, UK" ||
		a.Declared != "https://northmoor.bandcamp.com" || a.Release != nil {
		t.Errorf("account = %+v", a)
	}
	grid := fakebandcamp.Grid(fakebandcamp.LabelHost)
	if len(a.Items) != len(grid) || len(grid) <= 16 {
		t.Fatalf("got %d items, want the %d in the grid (16 rendered, the rest in data-client-items, duplicates and merch dropped)", len(a.Items), len(grid))
	}
	for i, it := range a.Items {
		if it.ID != grid[i].ID() || it.Title != grid[i].Title() || it.Artist != grid[i].Artist() {
			t.Errorf("item %d = %+v, want id %d %q by %q", i, it, grid[i].ID(), grid[i].Title(), grid[i].Artist())
		}
		if !strings.HasPrefix(it.ImageURL, "https://f4.bcbits.com/img/a") || !strings.HasSuffix(it.ImageURL, "_2.jpg") {
			t.Errorf("item %d image = %q", i, it.ImageURL)
		}
	}
	first := a.Items[0]
	if first.Type != "album" || first.Href != "/album/signal-drift" {
		t.Errorf("first item = %+v", first)
	}
	hosted := a.Items[4]
	if hosted.Href != "https://orlavance.bandcamp.com/album/gritstone-echoes?label=2100000001&tab=music" || hosted.Artist != "Orla Vance" {
		t.Errorf("artist-hosted item = %+v", hosted)
	}
	if a.Items[2].Title != "Peat & Static" {
		t.Errorf("entities not decoded: %q", a.Items[2].Title)
	}
	if a.Items[3].Type != "track" || a.Items[3].Href != "/track/weathervane" {
		t.Errorf("track item = %+v", a.Items[3])
	}
	// A lazy-loaded <li> image comes from data-original, not the placeholder.
	if a.Items[10].ImageURL != "https://f4.bcbits.com/img/a1100000011_2.jpg" {
		t.Errorf("lazy image = %q", a.Items[10].ImageURL)
	}
	last := a.Items[len(a.Items)-1]
	if last.Title != "Northmoor Sampler" || last.Artist != "Northmoor Records" {
		t.Errorf("item without an artist override = %+v", last)
	}
}

func TestParseAccountArtist(t *testing.T) {
	t.Parallel()
	a, err := bandcamp.ParseAccount(page(t, fakebandcamp.ArtistHost, "/music", http.StatusOK))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "Hollow Pine" || a.IsLabel || len(a.Items) != 2 {
		t.Fatalf("account = %+v", a)
	}
	spruce := a.Items[0]
	if spruce.Type != "track" || spruce.Artist != "Hollow Pine" || spruce.ImageURL != "https://f4.bcbits.com/img/a0919724444_2.jpg" {
		t.Errorf("standalone track item = %+v", spruce)
	}
}

func TestParseAccountCustomDomain(t *testing.T) {
	t.Parallel()
	for _, host := range []string{fakebandcamp.CustomHost, fakebandcamp.CustomDomain} {
		a, err := bandcamp.ParseAccount(page(t, host, "/music", http.StatusOK))
		if err != nil {
			t.Fatal(err)
		}
		if a.Declared != "https://music.tidewater.example" || a.Name != "Tidewater Audio" || len(a.Items) != 2 {
			t.Errorf("%s: account = %+v", host, a)
		}
	}
}

func TestParseAccountSingleRelease(t *testing.T) {
	t.Parallel()
	rec := fakebandcamp.Fetch(fakebandcamp.SingleHost, "/music")
	if rec.Code != http.StatusFound || rec.Header().Get("Location") != "https://lonefern.bandcamp.com/album/first-light" {
		t.Fatalf("/music = %d to %q, want a redirect to the only release", rec.Code, rec.Header().Get("Location"))
	}
	a, err := bandcamp.ParseAccount(page(t, fakebandcamp.SingleHost, "/album/first-light", http.StatusOK))
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "Lone Fern" || len(a.Items) != 0 || a.Release == nil || a.Release.Title != "First Light" ||
		a.Declared != "https://lonefern.bandcamp.com" || a.Location != "Galway, Ireland" {
		t.Errorf("account = %+v, release %+v", a, a.Release)
	}
}

func TestParseAccountRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body []byte
		want error
	}{
		{"fan page", page(t, "bandcamp.com", "/mirelle", http.StatusOK), bandcamp.ErrFanPage},
		{"challenge", page(t, fakebandcamp.ChallengeHost, "/music", http.StatusOK), bandcamp.ErrChallenge},
		{"404 page", page(t, fakebandcamp.MissingHost, "/music", http.StatusNotFound), bandcamp.ErrNotAccount},
		{"not HTML at all", []byte("Too Many Requests\n"), bandcamp.ErrNotAccount},
	}
	for _, tt := range tests {
		if _, err := bandcamp.ParseAccount(tt.body); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestParseAccountIndexPage(t *testing.T) {
	t.Parallel()
	a, err := bandcamp.ParseAccount(page(t, fakebandcamp.IndexHost, "/music", http.StatusOK))
	if err != nil {
		t.Fatal(err)
	}
	if a.IsLabel || a.Name != "Wash Lane Records" || len(a.Items) != fakebandcamp.IndexReleases || a.Unreadable != "" {
		t.Fatalf("index page: %d items, %+v", len(a.Items), a)
	}
	grid := fakebandcamp.Grid(fakebandcamp.IndexHost)
	for i, it := range a.Items {
		if it.Title != grid[i].Title() || it.Artist != grid[i].Artist() || it.ID != 0 || !strings.HasSuffix(it.ImageURL, "_2.jpg") {
			t.Errorf("item %d = %+v, want %q by %q", i, it, grid[i].Title(), grid[i].Artist())
		}
	}
}

func TestParseAccountStubOnly(t *testing.T) {
	t.Parallel()
	body := page(t, fakebandcamp.StubHost, "/music", http.StatusOK)
	a, err := bandcamp.ParseAccount(body)
	if err != nil || len(a.Items) != 0 || a.Release != nil || a.Unreadable != "" || a.Name != "Empty Reel" {
		t.Errorf("stub-only page = %+v, %v", a, err)
	}
	// Every /music page of the fake carries the stub, as Bandcamp's do.
	if !strings.Contains(string(page(t, fakebandcamp.LabelHost, "/music", http.StatusOK)), "data-tralbum=") {
		t.Error("the fake's grid page lacks the stub data-tralbum")
	}
}
