package fakebandcamp

import (
	"fmt"
	"time"
)

// Hosts the fake answers for. Every name is invented.
const (
	// LabelHost is a label whose /music lists 22 releases: 16 rendered, the
	// rest only in data-client-items. One is a pre-order, one has no
	// JSON-LD, one is hosted on ArtistSubHost.
	LabelHost = "northmoor.bandcamp.com"
	// ArtistSubHost hosts one release that LabelHost's grid lists.
	ArtistSubHost = "orlavance.bandcamp.com"
	// ArtistHost is an artist account (is_label false) with an album, a
	// standalone track, and a track page within the album.
	ArtistHost = "hollowpine.bandcamp.com"
	// CustomHost is an account that declares CustomDomain as its own.
	CustomHost   = "tidewater.bandcamp.com"
	CustomDomain = "music.tidewater.example"
	// SingleHost has one release: its /music redirects to it.
	SingleHost = "lonefern.bandcamp.com"
	// FlakyHost answers its first request with 429 and then as a label.
	FlakyHost = "patient.bandcamp.com"
	// IndexHost is a label still served in the older index-page layout
	// (LayoutIndex), with IndexReleases releases and is_label false.
	IndexHost     = "washlane.bandcamp.com"
	IndexReleases = 100
	// StubHost is an account whose /music page lists nothing and carries
	// only the stub data-tralbum (LayoutStub).
	StubHost = "emptyreel.bandcamp.com"

	// FanURL is a fan profile on the bare domain.
	FanURL = "https://bandcamp.com/mirelle"
	// MissingHost is an account that does not exist (404).
	MissingHost = "ghostlabel.bandcamp.com"
	// RateLimitedHost always answers 429 with Retry-After: RetryAfter.
	RateLimitedHost = "crowded.bandcamp.com"
	RetryAfter      = 7 * time.Second
	// ChallengeHost always serves the anti-bot challenge page.
	ChallengeHost = "guarded.bandcamp.com"
	// UnavailableHost always answers 503.
	UnavailableHost = "broken.bandcamp.com"
	// DroppedHost closes every connection without answering.
	DroppedHost = "dropped.bandcamp.com"
	// ForeignRedirectHost redirects /music to ForeignHost.
	ForeignRedirectHost = "elsewhere.bandcamp.com"
	ForeignHost         = "evil.example"
)

type account struct {
	host     string
	custom   string // custom domain, if the account has one
	id       int64
	name     string
	isLabel  bool
	location string
	genre    string
	// grid is the /music discography, newest first; releases hosted by
	// another account are linked there with absolute URLs.
	grid []*Release
	// extra are release pages that the grid does not list.
	extra []*Release
	// single makes /music redirect to the only release.
	single bool
	// layout is how /music is served; "" is LayoutGrid.
	layout string
}

// Release is one release page the fake serves.
type Release struct {
	typ      string // "album" or "track"
	id       int64
	slug     string
	title    string
	artist   string // "" when the account itself is the artist
	artID    int64
	date     string // YYYY-MM-DD; empty for a pre-order
	keywords []string
	preorder bool
	noLD     bool
	album    *Release // the album a track page belongs to
	host     *account // the hosting account, set by register
}

// PreorderLead is how far ahead the pre-order's date lies when served.
const PreorderLead = 45 * 24 * time.Hour

// Date is the release date the pages announce, as of now.
func (r *Release) Date(now time.Time) time.Time {
	if r.preorder {
		d := now.Add(PreorderLead).UTC()
		return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC)
	}
	if r.date == "" && r.album != nil {
		return r.album.Date(now)
	}
	d, err := time.Parse("2006-01-02", r.date)
	if err != nil {
		panic(fmt.Sprintf("fakebandcamp: bad date %q", r.date))
	}
	return d
}

func (a *account) origin() string {
	if a.custom != "" {
		return "https://" + a.custom
	}
	return "https://" + a.host
}

// URL is the release page's canonical URL.
func (r *Release) URL() string { return r.host.origin() + "/" + r.typ + "/" + r.slug }

// Artist is the name the release page credits.
func (r *Release) Artist() string {
	if r.artist == "" {
		return r.host.name
	}
	return r.artist
}

var (
	northmoor = &account{host: LabelHost, id: 2100000001, name: "Northmoor Records", isLabel: true,
		location: "Hebden Bridge, UK", genre: "electronic"}
	orlavance = &account{host: ArtistSubHost, id: 2100000005, name: "Orla Vance",
		location: "Halifax, UK", genre: "ambient"}
	hollowpine = &account{host: ArtistHost, id: 2100000002, name: "Hollow Pine",
		location: "Duluth, Minnesota", genre: "folk"}
	tidewater = &account{host: CustomHost, custom: CustomDomain, id: 2100000003, name: "Tidewater Audio", isLabel: true,
		location: "Bristol, UK", genre: "experimental"}
	lonefern = &account{host: SingleHost, id: 2100000004, name: "Lone Fern",
		location: "Galway, Ireland", genre: "folk", single: true}
	patient = &account{host: FlakyHost, id: 2100000006, name: "Patient Records", isLabel: true,
		location: "Glasgow, UK", genre: "rock"}
	washlane = &account{host: IndexHost, id: 2100000007, name: "Wash Lane Records",
		location: "Wisbech, UK", genre: "hip-hop-rap", layout: LayoutIndex}
	emptyreel = &account{host: StubHost, id: 2100000008, name: "Empty Reel", isLabel: true,
		location: "Hull, UK", genre: "rock", layout: LayoutStub}
)

// Releases that tests refer to.
var (
	// Preorder is the grid's first item, dated PreorderLead from now.
	Preorder = &Release{typ: "album", id: 3100000001, slug: "signal-drift", title: "Signal Drift", artist: "Kestrel Array",
		artID: 1100000001, preorder: true, keywords: []string{"Electronic", "IDM", "ambient", "Hebden Bridge"}}
	// NoLD has no JSON-LD; its data comes from data-tralbum and markup.
	NoLD = &Release{typ: "album", id: 3100000007, slug: "mill-chimney-dub", title: "Mill Chimney Dub", artist: "Heptonstall Sound System",
		artID: 1100000007, date: "2023-11-17", noLD: true, keywords: []string{"dub", "electronic", "Hebden Bridge"}}
	// Hosted is listed by the label but hosted on ArtistSubHost.
	Hosted = &Release{typ: "album", id: 3100000005, slug: "gritstone-echoes", title: "Gritstone Echoes",
		artID: 1100000005, date: "2024-06-14", keywords: []string{"ambient", "field recordings", "Halifax"}}
	// Standalone is a track sold on its own.
	Standalone = &Release{typ: "track", id: 3200000001, slug: "spruce", title: "Spruce",
		artID: 919724444, date: "2022-02-11", keywords: []string{"Folk", "acoustic", "Duluth"}}
	iceRoad = &Release{typ: "album", id: 3100000101, slug: "ice-road", title: "Ice Road",
		artID: 1100000101, date: "2021-12-03", keywords: []string{"americana", "folk", "Duluth"}}
	// InAlbum is a track page within Ice Road; grids never list it.
	InAlbum = &Release{typ: "track", id: 3200000002, slug: "thaw", title: "Thaw",
		artID: 1100000101, album: iceRoad, keywords: []string{"americana", "folk", "Duluth"}}
	// Single is Lone Fern's only release.
	Single = &Release{typ: "album", id: 3100000201, slug: "first-light", title: "First Light",
		artID: 1100000201, date: "2020-05-01", keywords: []string{"folk", "Galway"}}
)

func init() {
	nm := func(id int64, typ, slug, title, artist, date string, kw ...string) *Release {
		return &Release{typ: typ, id: id, slug: slug, title: title, artist: artist, artID: id - 2000000000,
			date: date, keywords: append(kw, "Hebden Bridge")}
	}
	northmoor.grid = []*Release{
		Preorder,
		nm(3100000002, "album", "low-moon-lanes", "Low Moon Lanes", "Ada Thorne", "2025-09-05", "electronic", "techno"),
		nm(3100000003, "album", "peat-and-static", "Peat & Static", "Kestrel Array", "2025-06-20", "Electronic", "Techno.", "ambient"),
		nm(3200000101, "track", "weathervane", "Weathervane", "Ada Thorne", "2025-04-04", "electronic", "house"),
		Hosted,
		nm(3100000006, "album", "calder-valley-tapes", "Calder Valley Tapes", "Various Artists", "2024-02-02", "compilation", "electronic"),
		NoLD,
		nm(3100000008, "album", "heather-burn", "Heather Burn", "Ada Thorne", "2023-08-11", "electronic", "techno"),
		nm(3100000009, "album", "slow-canal", "Slow Canal", "The Lock Keepers", "2023-03-03", "ambient", "drone"),
		nm(3100000010, "album", "cold-frame", "Cold Frame", "Kestrel Array", "2022-10-14", "electronic", "idm"),
		nm(3100000011, "album", "pennine-drone", "Pennine Drone", "Moss Cotton", "2022-06-24", "drone", "experimental"),
		nm(3200000102, "track", "stoodley-pike", "Stoodley Pike", "Moss Cotton", "2022-01-21", "drone"),
		nm(3100000013, "album", "wet-flagstones", "Wet Flagstones", "The Lock Keepers", "2021-09-17", "ambient"),
		nm(3100000014, "album", "ghost-train-to-todmorden", "Ghost Train to Todmorden", "Heptonstall Sound System", "2021-04-09", "dub", "electronic"),
		nm(3100000015, "album", "lantern-hours", "Lantern Hours", "Moss Cotton", "2020-11-27", "ambient"),
		nm(3100000016, "album", "old-town-hall", "Old Town Hall", "Ada Thorne", "2020-07-10", "electronic", "techno"),
		// The items below are only in data-client-items.
		nm(3100000017, "album", "crag-vale-sessions", "Crag Vale Sessions", "Kestrel Array", "2020-02-14", "electronic"),
		nm(3100000018, "album", "blackstone-edge", "Blackstone Edge", "Moss Cotton", "2019-10-04", "drone"),
		nm(3100000019, "album", "hardcastle-crags", "Hardcastle Crags", "The Lock Keepers", "2019-06-07", "ambient"),
		nm(3200000103, "track", "cragg-road", "Cragg Road", "Ada Thorne", "2019-03-01", "techno"),
		nm(3100000021, "album", "first-frost", "First Frost", "Ada Thorne", "2018-12-07", "electronic"),
		nm(3100000022, "album", "northmoor-sampler", "Northmoor Sampler", "", "2018-09-28", "compilation"),
	}
	orlavance.grid = []*Release{Hosted}
	hollowpine.grid = []*Release{Standalone, iceRoad}
	hollowpine.extra = []*Release{InAlbum}
	tidewater.grid = []*Release{
		{typ: "album", id: 3100000301, slug: "estuary", title: "Estuary", artist: "Severn Bore Collective",
			artID: 1100000301, date: "2024-10-25", keywords: []string{"experimental", "noise", "Bristol"}},
		{typ: "album", id: 3100000302, slug: "mudflats", title: "Mudflats", artist: "Clevedon Pier",
			artID: 1100000302, date: "2023-05-19", keywords: []string{"experimental", "drone", "Bristol"}},
	}
	lonefern.grid = []*Release{Single}
	patient.grid = []*Release{
		{typ: "album", id: 3100000401, slug: "waiting-room", title: "Waiting Room", artist: "The Queue",
			artID: 1100000401, date: "2024-01-12", keywords: []string{"rock", "post-punk", "Glasgow"}},
	}
	// The index-page label: a long catalogue, one release a month back
	// from 2025, some by guests, a few tracks.
	artists := []string{"", "Fen Tiger", "Nene Valley Crew", "", "March Hare"}
	for i := range IndexReleases {
		typ := "album"
		if i%7 == 3 {
			typ = "track"
		}
		d := time.Date(2025, 6, 6, 0, 0, 0, 0, time.UTC).AddDate(0, -i, 0)
		washlane.grid = append(washlane.grid, &Release{typ: typ, id: 3100000500 + int64(i), slug: fmt.Sprintf("wash-%03d", i+1),
			title: fmt.Sprintf("Wash Lane %03d", i+1), artist: artists[i%len(artists)], artID: 1100000500 + int64(i),
			date: d.Format("2006-01-02"), keywords: []string{"hip-hop/rap", "boom bap", "Wisbech"}})
	}
	emptyreel.grid = []*Release{
		{typ: "album", id: 3100000601, slug: "leader-tape", title: "Leader Tape", artist: "Humber Lights",
			artID: 1100000601, date: "2024-03-08", keywords: []string{"rock", "shoegaze", "Hull"}},
	}
	// orlavance first: it, not the label listing it, hosts Hosted.
	for _, a := range []*account{orlavance, northmoor, hollowpine, tidewater, lonefern, patient, washlane, emptyreel} {
		register(a)
	}
}

// accounts maps every host an account answers on to the account.
var accounts = map[string]*account{}

// register makes a the host of the releases its pages serve: those of its
// grid that no other account hosts, and its extra pages.
func register(a *account) {
	accounts[a.host] = a
	if a.custom != "" {
		accounts[a.custom] = a
	}
	for _, r := range append(append([]*Release{}, a.grid...), a.extra...) {
		if r.host == nil {
			r.host = a
		}
	}
}

// ID is the release's Bandcamp item id.
func (r *Release) ID() int64 { return r.id }

// Title is the release's title.
func (r *Release) Title() string { return r.title }

// Grid returns the releases that host's /music lists, newest first.
func Grid(host string) []*Release { return accounts[host].grid }
