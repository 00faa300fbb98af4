package bandcamp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"golang.org/x/net/html"
)

// Release is what a release page says about its release. Each field takes
// the first source that has it, in the order bandcamp.md §5 lists: JSON-LD,
// then the data-tralbum and data-embed attributes, then markup and meta.
type Release struct {
	// Type is "album" or "track".
	Type   string
	ID     int64
	Title  string
	Artist string
	// Date is the announced release date (UTC midnight), zero when unknown.
	// A pre-order carries its future date.
	Date     time.Time
	Preorder bool
	ImageURL string
	// Genres are the release's tags, cleaned, without the location tag.
	Genres []string

	// The hosting account, as the release page describes it.
	AccountName  string
	AccountURL   string
	Location     string
	PrimaryGenre string
}

// ParseRelease reads a release page. It returns ErrChallenge or
// ErrNotRelease (wrapped) when the page is neither.
func ParseRelease(body []byte) (*Release, error) {
	p, err := parsePage(body)
	if err != nil {
		return nil, err
	}
	if !p.isRelease() {
		return nil, ErrNotRelease
	}
	return p.release()
}

func (p *page) isRelease() bool {
	return p.ld != nil || p.tralbum != nil || p.ogType == "album" || p.ogType == "song"
}

func (p *page) release() (*Release, error) {
	r := &Release{
		Type:        p.itemType(),
		Title:       p.title(),
		Artist:      p.artist(),
		Preorder:    p.tralbum != nil && (p.tralbum.AlbumIsPreorder || p.tralbum.IsPreorder),
		ImageURL:    p.image(),
		AccountName: p.accountName(),
		Location:    p.location(),
	}
	if r.Title == "" {
		return nil, fmt.Errorf("%w: no title", ErrNotRelease)
	}
	r.ID = p.itemID(r.Type)
	r.Date = p.date()
	if credits := p.credits(); strings.HasPrefix(credits, "releases ") {
		r.Preorder = true
	}
	if p.ld != nil {
		r.Genres = ReleaseGenres(p.ld.Keywords, r.Location)
		if pub := p.ld.Publisher; pub != nil {
			r.AccountURL = pub.ID
			r.PrimaryGenre = GenreFromURL(pub.Genre)
		}
	}
	if len(r.Genres) == 0 {
		var tags []string
		for _, a := range findAll(p.root, all(tag("a"), class("tag"))) {
			tags = append(tags, text(a, nil))
		}
		r.Genres = ReleaseGenres(tags, r.Location)
	}
	return r, nil
}

func (p *page) itemType() string {
	if p.tralbum != nil && (p.tralbum.ItemType == "album" || p.tralbum.ItemType == "track") {
		return p.tralbum.ItemType
	}
	if p.ld != nil {
		for _, t := range p.ld.Type {
			switch t {
			case "MusicAlbum":
				return "album"
			case "MusicRecording":
				return "track"
			}
		}
	}
	switch p.ogType {
	case "album":
		return "album"
	case "song":
		return "track"
	}
	switch p.pageProperties().ItemType {
	case "a":
		return "album"
	case "t":
		return "track"
	}
	return ""
}

type pageProperties struct {
	ItemType string `json:"item_type"`
	ItemID   int64  `json:"item_id"`
}

func (p *page) pageProperties() pageProperties {
	var pp pageProperties
	_ = json.Unmarshal([]byte(meta(p.root, "bc-page-properties")), &pp)
	return pp
}

func (p *page) itemID(typ string) int64 {
	if p.tralbum != nil && p.tralbum.ID > 0 {
		return p.tralbum.ID
	}
	if p.ld != nil {
		if typ == "track" {
			if v := prop(p.ld.Properties, "track_id"); v > 0 {
				return v
			}
		}
		for _, e := range p.ld.AlbumRelease {
			if e.ID == p.ld.ID || len(p.ld.AlbumRelease) == 1 {
				if v := prop(e.Properties, "item_id"); v > 0 {
					return v
				}
			}
		}
	}
	if v := p.pageProperties().ItemID; v > 0 {
		return v
	}
	if p.embed != nil && p.embed.TralbumParam.Name == typ {
		return p.embed.TralbumParam.Value
	}
	return 0
}

func (p *page) title() string {
	if p.ld != nil && clean(p.ld.Name) != "" {
		return clean(p.ld.Name)
	}
	if p.tralbum != nil && clean(p.tralbum.Current.Title) != "" {
		return clean(p.tralbum.Current.Title)
	}
	if t := text(find(p.nameSection(), all(tag("h2"), class("trackTitle"))), nil); t != "" {
		return t
	}
	if t, _, ok := strings.Cut(meta(p.root, "og:title"), ", by "); ok {
		return clean(t)
	}
	t, _, _ := strings.Cut(text(find(p.root, tag("title")), nil), " | ")
	return clean(t)
}

func (p *page) artist() string {
	if p.ld != nil && clean(p.ld.ByArtist.Name) != "" {
		return clean(p.ld.ByArtist.Name)
	}
	if p.tralbum != nil && clean(p.tralbum.Artist) != "" {
		return clean(p.tralbum.Artist)
	}
	if p.embed != nil && clean(p.embed.Artist) != "" {
		return clean(p.embed.Artist)
	}
	if _, a, ok := strings.Cut(meta(p.root, "og:title"), ", by "); ok {
		return clean(a)
	}
	return text(find(find(p.nameSection(), tag("h3")), tag("a")), nil)
}

func (p *page) nameSection() *html.Node {
	if n := find(p.root, id("name-section")); n != nil {
		return n
	}
	return p.root
}

func (p *page) date() time.Time {
	var candidates []string
	if p.ld != nil {
		candidates = append(candidates, p.ld.DatePublished)
	}
	if t := p.tralbum; t != nil {
		for _, s := range []*string{t.AlbumReleaseDate, t.Current.ReleaseDate, t.Current.PublishDate} {
			if s != nil {
				candidates = append(candidates, *s)
			}
		}
	}
	for _, s := range candidates {
		if d, ok := ParseDate(s); ok {
			return d
		}
	}
	d, _ := ProseDate(p.credits())
	return d
}

// credits is the "released …" (or, for pre-orders, "releases …") line.
func (p *page) credits() string {
	return strings.ToLower(text(find(p.root, class("tralbum-credits")), nil))
}

func (p *page) image() string {
	if p.ld != nil {
		if img := p.ld.Image.first(); img != "" {
			return Resize(img)
		}
		if art := prop(p.ld.Properties, "art_id"); art > 0 {
			return ArtURL(art)
		}
	}
	if p.tralbum != nil && p.tralbum.ArtID > 0 {
		return ArtURL(p.tralbum.ArtID)
	}
	if p.embed != nil && p.embed.ArtID > 0 {
		return ArtURL(p.embed.ArtID)
	}
	if og := meta(p.root, "og:image"); og != "" {
		return Resize(og)
	}
	if a := find(find(p.root, id("tralbumArt")), all(tag("a"), withAttr("href"))); a != nil {
		return Resize(attr(a, "href"))
	}
	return ""
}
