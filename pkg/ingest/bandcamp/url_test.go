package bandcamp_test

import (
	"net/url"
	"testing"

	"github.com/labelbase/labelbase/pkg/ingest/bandcamp"
)

func TestNormaliseSubmission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		kind bandcamp.SubmissionKind
		url  string
	}{
		{"https://northmoor.bandcamp.com", bandcamp.Account, "https://northmoor.bandcamp.com"},
		{"  HTTPS://NorthMoor.Bandcamp.com/// ", bandcamp.Account, "https://northmoor.bandcamp.com"},
		{"http://northmoor.bandcamp.com/music?from=search#top", bandcamp.Account, "https://northmoor.bandcamp.com"},
		{"https://northmoor.bandcamp.com/album/low-moon-lanes?label=1&tab=music", bandcamp.Account, "https://northmoor.bandcamp.com"},
		{"northmoor.bandcamp.com", bandcamp.Account, "https://northmoor.bandcamp.com"},
		{"https://bandcamp.com/label/northmoor", bandcamp.Account, "https://northmoor.bandcamp.com"},
		{"https://www.bandcamp.com/label/north-moor/", bandcamp.Account, "https://north-moor.bandcamp.com"},
		{"https://bandcamp.com/mirelle", bandcamp.SitePage, "https://bandcamp.com/mirelle"},
		{"https://music.tidewater.example/", bandcamp.Foreign, "https://music.tidewater.example"},
		{"https://bandcamp.com", bandcamp.Invalid, ""},
		{"https://bandcamp.com/label/", bandcamp.Invalid, ""},
		{"https://bandcamp.com/label/a/b", bandcamp.Invalid, ""},
		{"https://bandcamp.com/discover/ambient", bandcamp.Invalid, ""},
		{"https://a.b.bandcamp.com", bandcamp.Invalid, ""},
		{"https://north_moor.bandcamp.com", bandcamp.Invalid, ""},
		{"https://northmoor.bandcamp.com:8443", bandcamp.Invalid, ""},
		{"https://user:pw@northmoor.bandcamp.com", bandcamp.Invalid, ""},
		{"ftp://northmoor.bandcamp.com", bandcamp.Invalid, ""},
		{"https://127.0.0.1", bandcamp.Invalid, ""},
		{"https://[::1]/", bandcamp.Invalid, ""},
		{"https://localhost", bandcamp.Invalid, ""},
		{"", bandcamp.Invalid, ""},
		{"not a url at all", bandcamp.Invalid, ""},
	}
	for _, tt := range tests {
		got := bandcamp.NormaliseSubmission(tt.in)
		if got.Kind != tt.kind || got.URL != tt.url {
			t.Errorf("NormaliseSubmission(%q) = %+v, want kind %d url %q", tt.in, got, tt.kind, tt.url)
		}
		if got.Kind == bandcamp.Invalid && got.Reason == "" {
			t.Errorf("NormaliseSubmission(%q) gave no reason", tt.in)
		}
	}
}

func TestNormaliseURL(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://music.tidewater.example")
	tests := []struct{ ref, want string }{
		{"/album/estuary", "https://music.tidewater.example/album/estuary"},
		{"/album/estuary/?from=home#x", "https://music.tidewater.example/album/estuary"},
		{"https://OrlaVance.bandcamp.com/album/gritstone-echoes?label=2100000001&tab=music", "https://orlavance.bandcamp.com/album/gritstone-echoes"},
		{"http://northmoor.bandcamp.com/track/weathervane", "https://northmoor.bandcamp.com/track/weathervane"},
	}
	for _, tt := range tests {
		got, err := bandcamp.NormaliseURL(tt.ref, base)
		if err != nil || got.String() != tt.want {
			t.Errorf("NormaliseURL(%q) = %v, %v; want %q", tt.ref, got, err, tt.want)
		}
	}
	for _, bad := range []string{"mailto:a@b.c", "https://northmoor.bandcamp.com:444/album/x", "javascript:alert(1)"} {
		if got, err := bandcamp.NormaliseURL(bad, base); err == nil {
			t.Errorf("NormaliseURL(%q) = %v, want an error", bad, got)
		}
	}
}

func TestHosts(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{"bandcamp.com": true, "x.bandcamp.com": true, "evilbandcamp.com": false, "bandcamp.com.evil.example": false} {
		if got := bandcamp.IsBandcampHost(host); got != want {
			t.Errorf("IsBandcampHost(%q) = %v", host, got)
		}
	}
	for host, want := range map[string]bool{"music.tidewater.example": true, "tidewater.example": true, "localhost": false,
		"10.0.0.1": false, "x.bandcamp.com": false, "-bad.example": false, "a..b": false} {
		if got := bandcamp.IsCustomDomain(host); got != want {
			t.Errorf("IsCustomDomain(%q) = %v", host, got)
		}
	}
}
