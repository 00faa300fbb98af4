package bandcamp

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// AccountPage is what an account's /music URL returned: a discography grid,
// or, for an account with a single release, that release's page.
type AccountPage struct {
	ID       int64
	Name     string
	IsLabel  bool
	Location string
	// Declared is the account's URL as the page itself states it. It is how
	// a custom domain shows up; callers decide whether to trust it.
	Declared string
	// Items is the grid, rendered items first, deduplicated by item id.
	Items []Item
	// Release is set when /music redirected to the account's only release.
	Release *Release
	// Unreadable says why a page that is an account's could not be read
	// (an unknown layout, a release page without a title or date). Items
	// and Release are empty then: the caller must not take the page for an
	// account without releases.
	Unreadable string
}

// Item is one grid entry. The grid has no dates and no tags; those need
// the release page.
type Item struct {
	// Type is "album" or "track"; album and track ids are separate series.
	Type string
	ID   int64
	// Href is the link as written: relative to the account, or absolute on
	// an artist's subdomain when a label lists a release it does not host.
	Href     string
	Title    string
	Artist   string
	ImageURL string
}

// clientItem is one entry of the grid's data-client-items, which holds the
// items past the first ~16 that the page renders as <li>.
type clientItem struct {
	Type    string `json:"type"`
	ID      int64  `json:"id"`
	Title   string `json:"title"`
	Artist  string `json:"artist"`
	ArtID   int64  `json:"art_id"`
	PageURL string `json:"page_url"`
}

// ParseAccount classifies a page fetched from an account's /music URL. It
// returns ErrChallenge, ErrFanPage or ErrNotAccount (wrapped) when the page
// is not an account. The account record is the test: account pages have
// one (data-band, or on older pages var BandData), and a rate-limit or
// challenge page never does; a page without it passes only if it holds a
// discography (grid or index page) and names the account. Bandcamp's
// is_label is kept but decides nothing: it is false for many real labels.
//
// The discography is read from, in order: the grid (ol#music-grid, or
// ol.music-grid on older pages: rendered <li> items, then
// data-client-items), the index-page layout (div#indexpage .ipCell), and
// the release page /music redirected to. An account page that links to
// releases none of these hold has a layout this parser does not know: it
// comes back with Unreadable set, never as an empty or made-up list.
func ParseAccount(body []byte) (*AccountPage, error) {
	p, err := parsePage(body)
	if err != nil {
		return nil, err
	}
	if p.ogType == "profile" {
		return nil, ErrFanPage
	}
	grid := find(p.root, id("music-grid"))
	if grid == nil {
		grid = find(p.root, all(tag("ol"), class("music-grid")))
	}
	index := find(p.root, id("indexpage"))
	band := p.band
	if band == nil {
		if grid == nil && index == nil {
			return nil, fmt.Errorf("%w: no data-band", ErrNotAccount)
		}
		band = &bandData{}
	}
	a := &AccountPage{ID: int64(band.ID), Name: p.accountName(), IsLabel: bool(band.IsLabel), Location: p.location(),
		Declared: string(band.URL)}
	if a.Name == "" {
		return nil, fmt.Errorf("%w: no account name", ErrNotAccount)
	}
	switch {
	case grid != nil || index != nil:
		if grid != nil {
			a.Items = gridItems(grid, a.Name)
		}
		if len(a.Items) == 0 && index != nil {
			a.Items = indexItems(index, a.Name)
		}
	case p.isRelease():
		r, err := p.release()
		if errors.Is(err, ErrUnreadable) {
			a.Unreadable = err.Error()
			return a, nil
		}
		if err != nil {
			return nil, err
		}
		a.Release = r
		if a.Declared == "" {
			a.Declared = r.AccountURL
		}
		return a, nil
	case p.ogType == "band" || p.ogType == "":
		// An account with nothing published yet, unless it links to
		// releases (checked below).
	default:
		return nil, fmt.Errorf("%w: neither a discography nor a release", ErrNotAccount)
	}
	if len(a.Items) == 0 {
		if n := releaseLinks(p.root); n > 0 {
			a.Unreadable = fmt.Sprintf("unknown layout: the page links to %d releases but has no discography Labelbase can read", n)
		}
	}
	return a, nil
}

// releaseLinks counts the distinct album and track links on a page.
func releaseLinks(root *html.Node) int {
	seen := map[string]bool{}
	for _, a := range findAll(root, all(tag("a"), withAttr("href"))) {
		if href := attr(a, "href"); isReleasePath(href) {
			u, _ := url.Parse(href)
			seen[u.Path] = true
		}
	}
	return len(seen)
}

func gridItems(grid *html.Node, account string) []Item {
	items := itemList{account: account, seen: map[string]bool{}}
	for _, li := range findAll(grid, tag("li")) {
		if hasAttr(li, "data-item-id") || hasClass(li, "music-grid-item") {
			items.add(renderedItem(li))
		}
	}
	var extra []clientItem
	if raw := attr(grid, "data-client-items"); raw != "" {
		_ = json.Unmarshal([]byte(raw), &extra) // a broken list leaves the rendered items
	}
	for _, c := range extra {
		it := Item{Type: c.Type, ID: c.ID, Href: c.PageURL, Title: clean(c.Title), Artist: clean(c.Artist)}
		if c.ArtID > 0 {
			it.ImageURL = ArtURL(c.ArtID)
		}
		items.add(it)
	}
	return items.out
}

// indexItems reads the index-page layout, which some accounts are still
// served: div#indexpage holding one .ipCell per release, with a link, the
// art (size _8), the title in .ipCellLabel1 and the artist in
// .ipCellLabel2. It carries no item ids; the release pages have them.
func indexItems(index *html.Node, account string) []Item {
	items := itemList{account: account, seen: map[string]bool{}}
	for _, cell := range findAll(index, class("ipCell")) {
		var it Item
		for _, a := range findAll(cell, all(tag("a"), withAttr("href"))) {
			if isReleasePath(attr(a, "href")) {
				it.Href = attr(a, "href")
				break
			}
		}
		it.Title = text(find(cell, class("ipCellLabel1")), nil)
		artist := text(find(cell, class("ipCellLabel2")), nil)
		if len(artist) > 3 && strings.EqualFold(artist[:3], "by ") {
			artist = artist[3:]
		}
		it.Artist = artist
		if img := find(cell, tag("img")); img != nil {
			it.ImageURL = imageOf(img)
		}
		if it.Title == "" {
			if img := find(cell, tag("img")); img != nil {
				it.Title = clean(attr(img, "alt"))
			}
		}
		items.add(it)
	}
	return items.out
}

// itemList collects grid items, keeping album and track links once each
// (by item id, or by link when there is none).
type itemList struct {
	account string
	seen    map[string]bool
	out     []Item
}

func (l *itemList) add(it Item) {
	if !isReleasePath(it.Href) {
		return
	}
	key := it.Type + "-" + strconv.FormatInt(it.ID, 10)
	if it.ID == 0 {
		key = it.Href
		if u, err := url.Parse(it.Href); err == nil {
			key = u.Host + strings.TrimRight(u.Path, "/")
		}
	}
	if l.seen[key] {
		return
	}
	if u, err := url.Parse(it.Href); err == nil && it.Type == "" {
		it.Type = strings.Trim(path.Dir(u.Path), "/")
	}
	l.seen[key] = true
	if it.Artist == "" {
		it.Artist = l.account
	}
	l.out = append(l.out, it)
}

// imageOf is a lazy-loaded image's data-original, else its src, when it is
// a cover (not the /img/0.gif placeholder), at CardSize.
func imageOf(img *html.Node) string {
	for _, src := range []string{attr(img, "data-original"), attr(img, "src")} {
		if IsCover(src) {
			return Resize(src)
		}
	}
	return ""
}

func renderedItem(li *html.Node) Item {
	typ, num, _ := strings.Cut(attr(li, "data-item-id"), "-")
	n, _ := strconv.ParseInt(num, 10, 64)
	it := Item{Type: typ, ID: n}
	if a := find(li, all(tag("a"), withAttr("href"))); a != nil {
		it.Href = attr(a, "href")
	}
	if t := find(li, class("title")); t != nil {
		it.Title = text(t, class("artist-override"))
		it.Artist = text(find(t, class("artist-override")), nil)
	}
	if img := find(li, tag("img")); img != nil {
		it.ImageURL = imageOf(img)
	}
	return it
}

// isReleasePath keeps album and track links; grids can also hold merch.
func isReleasePath(href string) bool {
	u, err := url.Parse(href)
	if err != nil {
		return false
	}
	return strings.HasPrefix(u.Path, "/album/") || strings.HasPrefix(u.Path, "/track/")
}
