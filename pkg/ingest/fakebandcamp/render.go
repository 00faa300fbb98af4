package fakebandcamp

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"time"
)

//go:embed testdata
var testdata embed.FS

// The templates escape by hand (esc) so that every data-* attribute is
// entity-encoded JSON, exactly as Bandcamp writes it.
var pages = template.Must(template.New("").Funcs(template.FuncMap{"esc": esc}).
	ParseFS(testdata, "testdata/*.tmpl"))

// esc entity-encodes like Bandcamp does (&quot; in attribute JSON).
var esc = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;").Replace

func static(name string) []byte {
	b, err := testdata.ReadFile("testdata/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

// rendered is how many grid items Bandcamp renders as <li>; the rest go
// into data-client-items.
const rendered = 16

const bcDate = "02 Jan 2006 15:04:05 GMT"

func art(id int64, size int) string {
	return fmt.Sprintf("https://f4.bcbits.com/img/a%010d_%d.jpg", id, size)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func execute(name string, v any) []byte {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

type gridItem struct {
	ItemID     string
	BandID     int64
	Href       string
	Image      string
	IndexImage string
	Lazy       bool
	Title      string
	Override   string
	Artist     string
}

// Layouts of a /music page.
const (
	// LayoutGrid is today's: ol#music-grid, 16 items rendered, the rest
	// in data-client-items.
	LayoutGrid = "grid"
	// LayoutIndex is the older index page: div#indexpage with an .ipCell
	// per release, every release rendered, no item ids.
	LayoutIndex = "index"
	// LayoutStub lists nothing: the page's only data-tralbum is the stub.
	LayoutStub = "stub"
	// LayoutUnknown links to every release from markup no parser knows.
	LayoutUnknown = "unknown"
)

func renderMusic(a *account, servedOn, layout string) []byte {
	var items []gridItem
	var client []map[string]any
	for i, r := range a.grid {
		if layout == LayoutStub {
			break
		}
		href := "/" + r.typ + "/" + r.slug
		if r.host != a {
			href = r.URL() + "?label=" + strconv.FormatInt(a.id, 10) + "&tab=music"
		}
		override := ""
		if r.Artist() != a.name {
			override = r.Artist()
		}
		if i < rendered || layout != LayoutGrid {
			items = append(items, gridItem{ItemID: r.typ + "-" + strconv.FormatInt(r.id, 10), BandID: r.host.id,
				Href: href, Image: art(r.artID, 2), IndexImage: art(r.artID, 8), Lazy: i >= 4, Title: r.title,
				Override: override, Artist: r.Artist()})
			continue
		}
		client = append(client, clientItem(r, href))
	}
	if len(a.grid) > rendered && layout == LayoutGrid {
		// Bandcamp's lists overlap at the seam; a merch link rides along.
		client = append(client, clientItem(a.grid[rendered-1], "/"+a.grid[rendered-1].typ+"/"+a.grid[rendered-1].slug))
		client = append(client, map[string]any{"type": "album", "id": 3100000099, "title": "Northmoor Tote Bag",
			"artist": a.name, "band_id": a.id, "art_id": 1100000099, "page_url": "/merch/northmoor-tote-bag"})
	}
	return execute("music.html.tmpl", map[string]any{
		"Name": a.name, "Location": a.location, "Origin": a.origin(), "ID": a.id, "IsLabel": a.isLabel,
		"BandJSON": mustJSON(map[string]any{"id": a.id, "name": a.name, "is_label": a.isLabel, "url": a.origin(),
			"account_id": a.id + 1000, "image_id": a.id}),
		"SiteJSON":    mustJSON(map[string]any{"is_custom_domain": customFlag(a, servedOn)}),
		"StubJSON":    mustJSON(map[string]any{"url": a.origin() + "/music"}),
		"Layout":      layout,
		"ClientItems": mustJSON(client),
		"Rendered":    items,
	})
}

func clientItem(r *Release, href string) map[string]any {
	return map[string]any{"type": r.typ, "id": r.id, "title": r.title, "artist": r.Artist(),
		"band_id": r.host.id, "art_id": r.artID, "page_url": href}
}

func customFlag(a *account, servedOn string) any {
	if a.custom != "" && servedOn == a.custom {
		return true
	}
	return nil
}

type tagLink struct{ Name, Slug string }

func renderRelease(r *Release, servedOn string, now time.Time) []byte {
	a := r.host
	date := r.Date(now)
	published := date.Add(-6 * time.Hour)
	ogType, description := "album", "1 track album"
	if r.typ == "track" {
		ogType, description = "song", "track by "+r.Artist()
	}
	credits := "released " + date.Format("January 2, 2006")
	if r.preorder {
		credits = "releases " + date.Format("January 2, 2006")
	}
	var tags []tagLink
	for _, k := range r.keywords {
		l := strings.ToLower(k)
		tags = append(tags, tagLink{Name: l, Slug: strings.ReplaceAll(l, " ", "-")})
	}
	var currentArtist any
	if r.artist != "" {
		currentArtist = r.artist
	}
	// An album sets both dates, a standalone track only its own, and a
	// track within an album only the album's.
	var albumDate, currentDate any = date.Format(bcDate), date.Format(bcDate)
	switch {
	case r.typ == "track" && r.album == nil:
		albumDate = nil
	case r.typ == "track":
		currentDate = nil
	}
	track := map[string]any{"id": r.id + 500000000, "track_id": r.id + 500000000, "track_num": 1, "title": r.title,
		"artist": nil, "duration": 250.1, "title_link": "/track/" + r.slug,
		"file": map[string]any{"mp3-128": "https://t4.bcbits.com/stream/fake/" + r.slug}, "unreleased_track": false}
	if r.preorder {
		track["duration"], track["title_link"], track["file"], track["unreleased_track"] = 0, nil, nil, true
	}
	view := map[string]any{
		"Title": r.title, "Artist": r.Artist(), "URL": r.URL(), "OGType": ogType, "Description": description,
		"AccountName": a.name, "AccountOrigin": a.origin(), "Location": a.location, "BandID": a.id,
		"OGImage": art(r.artID, 5), "ArtPopup": art(r.artID, 10), "ArtPage": art(r.artID, 16),
		"Credits": credits, "Tags": tags,
		"PageProperties": mustJSON(map[string]any{"item_type": r.typ[:1], "item_id": r.id}),
		"Tralbum": mustJSON(map[string]any{"id": r.id, "item_type": r.typ, "artist": r.Artist(), "url": r.URL(),
			"art_id": r.artID, "album_release_date": albumDate, "album_is_preorder": r.preorder, "is_preorder": r.preorder,
			"current": map[string]any{"id": r.id, "type": r.typ, "title": r.title, "artist": currentArtist,
				"band_id": a.id, "selling_band_id": a.id, "release_date": currentDate,
				"publish_date": published.Format(bcDate), "upc": nil},
			"trackinfo": []any{track}}),
		"Embed": mustJSON(map[string]any{"tralbum_param": map[string]any{"name": r.typ, "value": r.id},
			"art_id": r.artID, "artist": r.Artist(), "album_title": r.title, "linkback": r.URL()}),
		"Band": mustJSON(map[string]any{"id": a.id, "name": a.name, "fan_email": nil, "account_id": a.id + 1000,
			"facebook_like_enabled": true, "has_discounts": false, "image_id": a.id}),
		"Site": mustJSON(map[string]any{"is_custom_domain": customFlag(a, servedOn)}),
		"Blob": mustJSON(map[string]any{"item_sellers": map[string]any{strconv.FormatInt(a.id, 10): map[string]any{"name": a.name}}}),
	}
	if !r.noLD {
		view["LD"] = mustJSON(releaseLD(r, date))
	}
	return execute("release.html.tmpl", view)
}

// releaseLD is the page's JSON-LD: one line, as Bandcamp writes it.
func releaseLD(r *Release, date time.Time) map[string]any {
	a := r.host
	byArtist := map[string]any{"@type": "MusicGroup", "name": r.Artist()}
	if r.artist == "" {
		byArtist["@id"] = a.origin() // only when the account is the artist
	}
	subjectOf := []any{map[string]any{"@type": "WebPage", "url": a.origin() + "/music", "name": "music",
		"additionalProperty": []any{map[string]any{"@type": "PropertyValue", "name": "nav_type", "value": "m"}}}}
	if a.isLabel {
		subjectOf = append(subjectOf, map[string]any{"@type": "WebPage", "url": a.origin() + "/artists", "name": "artists",
			"additionalProperty": []any{map[string]any{"@type": "PropertyValue", "name": "nav_type", "value": "a"}}})
	}
	ld := map[string]any{
		"@context": "https://schema.org", "@id": r.URL(), "name": r.title, "byArtist": byArtist,
		"publisher": map[string]any{"@type": "MusicGroup", "@id": a.origin(), "name": a.name,
			"genre":            "https://bandcamp.com/discover/" + a.genre,
			"foundingLocation": map[string]any{"@type": "Place", "name": a.location}, "subjectOf": subjectOf},
		"datePublished": date.Format(bcDate), "dateModified": date.Add(30 * time.Hour).Format(bcDate),
		"image": art(r.artID, 10), "keywords": r.keywords,
	}
	if r.typ == "album" {
		ld["@type"] = "MusicAlbum"
		ld["numTracks"] = 1
		ld["albumReleaseType"] = "AlbumRelease"
		ld["additionalProperty"] = []any{prop("art_id", r.artID)}
		ld["albumRelease"] = []any{map[string]any{"@type": []string{"MusicRelease", "Product"}, "@id": r.URL(),
			"musicReleaseFormat": "DigitalFormat", "additionalProperty": []any{prop("item_id", r.id)}}}
		ld["track"] = map[string]any{"@type": "ItemList", "numberOfItems": 1, "itemListElement": []any{
			map[string]any{"@type": "ListItem", "position": 1, "item": map[string]any{"@type": "MusicRecording",
				"@id": a.origin() + "/track/" + r.slug + "-1", "name": r.title, "duration": "P00H04M10S"}}}}
		return ld
	}
	ld["@type"] = "MusicRecording"
	ld["duration"] = "P00H04M10S"
	ld["additionalProperty"] = []any{prop("track_id", r.id), prop("art_id", r.artID), prop("tracknum", 1)}
	if r.album != nil {
		ld["inAlbum"] = map[string]any{"@type": "MusicAlbum", "@id": r.album.URL(), "name": r.album.title,
			"albumReleaseType": "AlbumRelease"}
	}
	return ld
}

func prop(name string, v any) map[string]any {
	return map[string]any{"@type": "PropertyValue", "name": name, "value": v}
}
