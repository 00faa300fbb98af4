package bandcamp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// page is what every Bandcamp page may carry, read once. The data-*
// attributes are entity-encoded JSON; the HTML parser decodes them once.
type page struct {
	root    *html.Node
	ogType  string
	band    *bandData
	tralbum *tralbumData
	embed   *embedData
	ld      *ldRelease
}

// The records below are decoded field by field leniently (num, flag,
// str): in a record Bandcamp has written over the years, and in inline
// scripts most of all, a field of an unexpected type (an id as a string, a
// flag as 0 or null) must cost that field, not the whole record.

// bandData is data-band: the account, with is_label and url on account pages.
type bandData struct {
	ID      num  `json:"id"`
	Name    str  `json:"name"`
	IsLabel flag `json:"is_label"`
	URL     str  `json:"url"`
}

// tralbumData is data-tralbum, a release's own record.
type tralbumData struct {
	ID               num  `json:"id"`
	ItemType         str  `json:"item_type"`
	Artist           str  `json:"artist"`
	ArtID            num  `json:"art_id"`
	AlbumReleaseDate str  `json:"album_release_date"`
	AlbumIsPreorder  flag `json:"album_is_preorder"`
	IsPreorder       flag `json:"is_preorder"`
	Current          struct {
		Title       str `json:"title"`
		ReleaseDate str `json:"release_date"`
		PublishDate str `json:"publish_date"`
	} `json:"current"`
}

// embedData is data-embed, the player's view of a release.
type embedData struct {
	Artist       str `json:"artist"`
	ArtID        num `json:"art_id"`
	TralbumParam struct {
		Name  str `json:"name"`
		Value num `json:"value"`
	} `json:"tralbum_param"`
}

// num is an integer given as a number or a numeric string; anything else
// is 0.
type num int64

func (n *num) UnmarshalJSON(b []byte) error {
	*n = 0
	var v json.Number
	if err := json.Unmarshal(b, &v); err == nil {
		if i, err := v.Int64(); err == nil {
			*n = num(i)
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			*n = num(i)
		}
	}
	return nil
}

// flag is true for true, a non-zero number or "true"; anything else is false.
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	s := strings.Trim(strings.TrimSpace(string(b)), `"`)
	*f = flag(s == "true" || (s != "" && s != "0" && s != "null" && s != "false" && strings.Trim(s, "0123456789.-") == ""))
	return nil
}

// str is a string; null or any other type is "".
type str string

func (t *str) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = str(s)
	} else {
		*t = ""
	}
	return nil
}

// ldRelease is the JSON-LD MusicAlbum or MusicRecording of a release page.
type ldRelease struct {
	Type          stringList     `json:"@type"`
	ID            string         `json:"@id"`
	Name          string         `json:"name"`
	ByArtist      ldEntity       `json:"byArtist"`
	Publisher     *ldPublisher   `json:"publisher"`
	DatePublished string         `json:"datePublished"`
	Image         stringList     `json:"image"`
	Keywords      stringList     `json:"keywords"`
	Properties    []ldProperty   `json:"additionalProperty"`
	AlbumRelease  []ldAlbumEntry `json:"albumRelease"`
}

type ldPublisher struct {
	ID       string   `json:"@id"`
	Name     string   `json:"name"`
	Genre    string   `json:"genre"`
	Location ldEntity `json:"foundingLocation"`
}

type ldAlbumEntry struct {
	ID         string       `json:"@id"`
	Properties []ldProperty `json:"additionalProperty"`
}

type ldProperty struct {
	Name  string          `json:"name"`
	Value json.RawMessage `json:"value"`
}

// ldEntity is an object with a name, or a list of them (several artists).
type ldEntity struct {
	ID   string
	Name string
}

func (e *ldEntity) UnmarshalJSON(b []byte) error {
	type one struct {
		ID   string `json:"@id"`
		Name string `json:"name"`
	}
	var many []one
	if err := json.Unmarshal(b, &many); err == nil {
		names := make([]string, 0, len(many))
		for _, m := range many {
			names = append(names, m.Name)
		}
		e.Name = strings.Join(names, ", ")
		return nil
	}
	var o one
	if err := json.Unmarshal(b, &o); err != nil {
		return nil //nolint:nilerr // an unexpected shape is the same as a missing field
	}
	e.ID, e.Name = o.ID, o.Name
	return nil
}

// stringList accepts a string or a list of strings, as JSON-LD allows both.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*l = stringList{s}
		return nil
	}
	var ss []string
	if err := json.Unmarshal(b, &ss); err == nil {
		*l = ss
	}
	return nil
}

// prop returns the numeric additionalProperty called name, or 0.
func prop(props []ldProperty, name string) int64 {
	for _, p := range props {
		if p.Name != name {
			continue
		}
		var n json.Number
		if err := json.Unmarshal(p.Value, &n); err == nil {
			if v, err := n.Int64(); err == nil {
				return v
			}
		}
		var s string
		if err := json.Unmarshal(p.Value, &s); err == nil {
			if v, err := strconv.ParseInt(s, 10, 64); err == nil {
				return v
			}
		}
	}
	return 0
}

// IsChallenge reports whether body is the anti-bot interstitial, which has
// none of Bandcamp's data attributes and must be retried, not judged.
func IsChallenge(body []byte) bool {
	return bytes.Contains(body, []byte("<title>Client Challenge</title>")) || bytes.Contains(body, []byte("/_fs-ch-"))
}

func parsePage(body []byte) (*page, error) {
	if IsChallenge(body) {
		return nil, ErrChallenge
	}
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("bandcamp: parse HTML: %w", err)
	}
	p := &page{root: root, ogType: meta(root, "og:type")}
	p.band = decodeAttr[bandData](root, "data-band")
	p.tralbum = decodeAttr[tralbumData](root, "data-tralbum")
	p.embed = decodeAttr[embedData](root, "data-embed")
	// Older pages keep the same records in inline scripts.
	if p.band == nil || p.tralbum == nil || p.embed == nil {
		scripts := inlineScripts(root)
		if p.band == nil {
			p.band = decodeJSON[bandData](scriptVar(scripts, "BandData"))
		}
		if p.tralbum == nil {
			p.tralbum = decodeJSON[tralbumData](scriptVar(scripts, "TralbumData"))
		}
		if p.embed == nil {
			p.embed = decodeJSON[embedData](scriptVar(scripts, "EmbedData"))
		}
	}
	if p.tralbum != nil && p.tralbum.isStub() {
		// Every current /music page carries data-tralbum = {"url": …}:
		// a stub, not a release.
		p.tralbum = nil
	}
	p.ld = parseLD(root)
	return p, nil
}

// isStub reports whether the record names no release: no id, no type, no
// title (the {"url": …} that account pages carry).
func (t *tralbumData) isStub() bool {
	return t.ID == 0 && t.ItemType == "" && clean(string(t.Current.Title)) == ""
}

// inlineScripts returns the text of every script element without a src.
func inlineScripts(root *html.Node) []string {
	var out []string
	for _, s := range findAll(root, tag("script")) {
		if hasAttr(s, "src") || s.FirstChild == nil {
			continue
		}
		if t := attr(s, "type"); t != "" && !strings.Contains(t, "javascript") {
			continue
		}
		out = append(out, s.FirstChild.Data)
	}
	return out
}

func decodeJSON[T any](b []byte) *T {
	if b == nil {
		return nil
	}
	v := new(T)
	if err := json.Unmarshal(b, v); err != nil {
		return nil
	}
	return v
}

// decodeAttr decodes the JSON in the first attribute called key, or
// returns nil when there is none or it does not parse.
func decodeAttr[T any](root *html.Node, key string) *T {
	n := find(root, withAttr(key))
	if n == nil {
		return nil
	}
	return decodeJSON[T]([]byte(attr(n, key)))
}

// parseLD reads the first JSON-LD block that describes a release.
func parseLD(root *html.Node) *ldRelease {
	for _, s := range findAll(root, all(tag("script"), func(n *html.Node) bool {
		return attr(n, "type") == "application/ld+json"
	})) {
		if s.FirstChild == nil {
			continue
		}
		var ld ldRelease
		if err := json.Unmarshal([]byte(s.FirstChild.Data), &ld); err != nil {
			continue
		}
		if ld.Name != "" || ld.ID != "" {
			return &ld
		}
	}
	return nil
}

// accountName is the account's display name, from whichever source the page has.
func (p *page) accountName() string {
	if p.band != nil && clean(string(p.band.Name)) != "" {
		return clean(string(p.band.Name))
	}
	if n := find(p.root, id("band-name-location")); n != nil {
		if t := text(find(n, class("title")), nil); t != "" {
			return t
		}
	}
	if p.ld != nil && p.ld.Publisher != nil && p.ld.Publisher.Name != "" {
		return clean(p.ld.Publisher.Name)
	}
	return clean(meta(p.root, "og:site_name"))
}

// location is the account's place as Bandcamp shows it ("Leeds, UK").
func (p *page) location() string {
	if n := find(p.root, id("band-name-location")); n != nil {
		if t := text(find(n, class("location")), nil); t != "" {
			return t
		}
	}
	if p.ld != nil && p.ld.Publisher != nil {
		return clean(p.ld.Publisher.Location.Name)
	}
	return ""
}
