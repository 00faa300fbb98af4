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
// ErrNotRelease (wrapped) when the page is neither, and ErrUnreadable
// (wrapped) for a release page without a title or a date.
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

// keywords returns JSON-LD keywords as a list: 2020–21 pages give one
// string, "electronic, acid, techno, berlin".
func keywords(l stringList) []string {
	if len(l) != 1 {
		return l
	}
	return strings.Split(l[0], ",")
}

// isRelease reports whether the page describes a release. A stub
// data-tralbum was already dropped by parsePage, so an account page with
// nothing else never passes.
func (p *page) isRelease() bool {
	return p.ld != nil || p.tralbum != nil || p.ogType == "album" || p.ogType == "song"
}

func (p *page) release() (*Release, error) {
	r := &Release{
		Type:        p.itemType(),
		Title:       p.title(),
		Artist:      p.artist(),
		Preorder:    p.tralbum != nil && bool(p.tralbum.AlbumIsPreorder || p.tralbum.IsPreorder),
		ImageURL:    p.image(),
		AccountName: p.accountName(),
		Location:    p.location(),
	}
	if r.Title == "" {
		return nil, fmt.Errorf("%w: a release page without a title", ErrUnreadable)
	}
	r.ID = p.itemID(r.Type)
	r.Date = p.date()
	if r.Date.IsZero() {
		return nil, fmt.Errorf("%w: release page %q has no release date", ErrUnreadable, r.Title)
	}
	if credits := p.credits(); strings.HasPrefix(credits, "releases ") {
		r.Preorder = true
	}
	if p.ld != nil {
		r.Genres = ReleaseGenres(keywords(p.ld.Keywords), r.Location)
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
		return string(p.tralbum.ItemType)
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
		return int64(p.tralbum.ID)
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
	if p.embed != nil && string(p.embed.TralbumParam.Name) == typ {
		return int64(p.embed.TralbumParam.Value)
	}
	return 0
}

func (p *page) title() string {
	if p.ld != nil && clean(p.ld.Name) != "" {
		return clean(p.ld.Name)
	}
	if p.tralbum != nil && clean(string(p.tralbum.Current.Title)) != "" {
		return clean(string(p.tralbum.Current.Title))
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
	if p.tralbum != nil && clean(string(p.tralbum.Artist)) != "" {
		return clean(string(p.tralbum.Artist))
	}
	if p.embed != nil && clean(string(p.embed.Artist)) != "" {
		return clean(string(p.embed.Artist))
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

// date takes, in order: data-tralbum's album_release_date, then its
// current.release_date (the dates the artist set; a track on an album has
// only the album's), then JSON-LD datePublished, which on 2020–21 pages is
// when the page went up, months off the release, then publish_date, then
// the credits line, then older pages' microdata.
func (p *page) date() time.Time {
	var candidates []string
	t := p.tralbum
	if t != nil {
		candidates = append(candidates, string(t.AlbumReleaseDate), string(t.Current.ReleaseDate))
	}
	if p.ld != nil {
		candidates = append(candidates, p.ld.DatePublished)
	}
	if t != nil {
		candidates = append(candidates, string(t.Current.PublishDate))
	}
	for _, s := range candidates {
		if d, ok := ParseDate(s); ok {
			return d
		}
	}
	if d, ok := ProseDate(p.credits()); ok {
		return d
	}
	// Older pages' schema.org microdata: <meta itemprop="datePublished"
	// content="20160318">.
	if m := find(p.root, all(tag("meta"), func(n *html.Node) bool { return attr(n, "itemprop") == "datePublished" })); m != nil {
		if d, err := time.Parse("20060102", strings.TrimSpace(attr(m, "content"))); err == nil {
			return d
		}
	}
	return time.Time{}
}

// credits is the "released …" (or, for pre-orders, "releases …") line.
func (p *page) credits() string {
	return strings.ToLower(text(find(p.root, class("tralbum-credits")), nil))
}

// image takes the art id first (JSON-LD additionalProperty art_id,
// data-tralbum, data-embed), since it always names the real cover, then
// JSON-LD image, og:image and the page's art link, each only when it is a
// cover on Bandcamp's image host: 2020–21 pages may put a placeholder
// (…/img/blank.gif) in JSON-LD image.
func (p *page) image() string {
	if p.ld != nil {
		if art := prop(p.ld.Properties, "art_id"); art > 0 {
			return ArtURL(art)
		}
	}
	if p.tralbum != nil && p.tralbum.ArtID > 0 {
		return ArtURL(int64(p.tralbum.ArtID))
	}
	if p.embed != nil && p.embed.ArtID > 0 {
		return ArtURL(int64(p.embed.ArtID))
	}
	var srcs []string
	if p.ld != nil {
		srcs = append(srcs, p.ld.Image...)
	}
	srcs = append(srcs, meta(p.root, "og:image"))
	if art := find(p.root, id("tralbumArt")); art != nil {
		srcs = append(srcs, attr(find(art, all(tag("a"), withAttr("href"))), "href"), attr(find(art, tag("img")), "src"))
	}
	for _, src := range srcs {
		if IsCover(src) {
			return Resize(src)
		}
	}
	return ""
}
