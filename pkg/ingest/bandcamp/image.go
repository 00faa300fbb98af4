package bandcamp

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// CardSize is the cover format stored for releases: format 2, 350×350, the
// smallest square at least as wide as the app's ~300px cards, and the size
// Bandcamp's own grids load, so it is usually cached at the CDN already.
const CardSize = 2

// ArtURL is the cover at CardSize for an art id. Bandcamp pads ids to ten
// digits.
func ArtURL(artID int64) string {
	return fmt.Sprintf("https://f4.bcbits.com/img/a%010d_%d.jpg", artID, CardSize)
}

var sizeSuffix = regexp.MustCompile(`_\d{1,3}\.([a-z]+)$`)

// Resize rewrites a bcbits.com image URL to CardSize; other URLs are kept.
func Resize(src string) string {
	u, err := url.Parse(strings.TrimSpace(src))
	if err != nil || !(u.Host == "bcbits.com" || strings.HasSuffix(u.Host, ".bcbits.com")) {
		return src
	}
	u.Scheme = "https"
	u.Path = sizeSuffix.ReplaceAllString(u.Path, fmt.Sprintf("_%d.$1", CardSize))
	return u.String()
}

var coverPath = regexp.MustCompile(`^/img/a?\d+_\d{1,3}\.[a-z]+$`)

// IsCover reports whether src is a cover or photo on Bandcamp's image host,
// not a placeholder such as /img/blank.gif or /img/0.gif.
func IsCover(src string) bool {
	u, err := url.Parse(strings.TrimSpace(src))
	if err != nil || !(u.Host == "bcbits.com" || strings.HasSuffix(u.Host, ".bcbits.com")) {
		return false
	}
	return coverPath.MatchString(u.Path)
}
