package bandcamp

import (
	"encoding/json"
	"fmt"
	"net/url"
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
// is not an account. data-band is the test: every account page has it, and
// a rate-limit or challenge page never does.
func ParseAccount(body []byte) (*AccountPage, error) {
	p, err := parsePage(body)
	if err != nil {
		return nil, err
	}
	if p.ogType == "profile" {
		return nil, ErrFanPage
	}
	if p.band == nil {
		return nil, fmt.Errorf("%w: no data-band", ErrNotAccount)
	}
	a := &AccountPage{ID: p.band.ID, Name: p.accountName(), IsLabel: p.band.IsLabel, Location: p.location(), Declared: p.band.URL}
	if a.Name == "" {
		return nil, fmt.Errorf("%w: no account name", ErrNotAccount)
	}
	grid := find(p.root, id("music-grid"))
	switch {
	case grid != nil:
		a.Items = gridItems(grid, a.Name)
	case p.isRelease():
		r, err := p.release()
		if err != nil {
			return nil, err
		}
		a.Release = r
		if a.Declared == "" {
			a.Declared = r.AccountURL
		}
	case p.ogType == "band":
		// An account with nothing published yet.
	default:
		return nil, fmt.Errorf("%w: neither a discography nor a release", ErrNotAccount)
	}
	return a, nil
}

func gridItems(grid *html.Node, account string) []Item {
	var items []Item
	seen := map[string]bool{}
	add := func(it Item) {
		if !isReleasePath(it.Href) {
			return
		}
		key := it.Type + "-" + strconv.FormatInt(it.ID, 10)
		if it.ID == 0 {
			key = it.Href
		}
		if seen[key] {
			return
		}
		seen[key] = true
		if it.Artist == "" {
			it.Artist = account
		}
		items = append(items, it)
	}
	for _, li := range findAll(grid, all(tag("li"), withAttr("data-item-id"))) {
		add(renderedItem(li))
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
		add(it)
	}
	return items
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
		src := attr(img, "data-original")
		if src == "" {
			src = attr(img, "src")
		}
		if strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://") {
			it.ImageURL = Resize(src)
		}
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
