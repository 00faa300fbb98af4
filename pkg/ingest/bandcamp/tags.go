package bandcamp

import (
	"net/url"
	"path"
	"slices"
	"strings"
)

// CleanTag normalises one tag so that "Techno", "techno" and "Techno."
// count as one: zero-width characters and trailing punctuation go, and it
// is lower-cased like Bandcamp's own tag URLs.
func CleanTag(s string) string {
	return strings.ToLower(strings.TrimRight(clean(s), ".,;:!"))
}

// ReleaseGenres turns a release's keywords into its genres. Bandcamp
// appends the account's location to the keywords, so any keyword equal to
// the location or one of its comma-separated parts is dropped.
func ReleaseGenres(keywords []string, location string) []string {
	place := map[string]bool{}
	if loc := CleanTag(location); loc != "" {
		place[loc] = true
		for part := range strings.SplitSeq(loc, ",") {
			place[strings.TrimSpace(part)] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, k := range keywords {
		t := CleanTag(k)
		if t == "" || place[t] || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// genreSlugs maps the URL slugs of Bandcamp's primary genres to the tag
// text releases carry, where the two differ: an account whose primary genre
// is /discover/hip-hop-rap tags its releases "hip-hop/rap", and both must
// be one genre. The primary genres are a fixed list of about thirty.
var genreSlugs = map[string]string{
	"hip-hop-rap": "hip-hop/rap",
	"r-b-soul":    "r&b/soul",
	"spoken-word": "spoken word",
}

// GenreFromURL reads the account's primary genre from the JSON-LD
// publisher.genre, ".../discover/electronic" (older pages "/tag/…"), as
// tag text (see genreSlugs).
func GenreFromURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Path == "" {
		return ""
	}
	dir, base := path.Split(strings.TrimRight(u.Path, "/"))
	if dir != "/discover/" && dir != "/tag/" {
		return ""
	}
	if text, ok := genreSlugs[CleanTag(base)]; ok {
		return text
	}
	return CleanTag(base)
}

// maxLabelTags keeps a label card's chips on one or two lines.
const maxLabelTags = 8

// LabelTags derives a label's tags, since account pages carry none: the
// primary genre, then the genres most common across its recent releases
// (first seen wins ties), then its city, the way Bandcamp tags a release
// with its place.
func LabelTags(primaryGenre, location string, recent [][]string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(t string) {
		if t = CleanTag(t); t != "" && !seen[t] && len(out) < maxLabelTags {
			seen[t] = true
			out = append(out, t)
		}
	}
	add(primaryGenre)
	count := map[string]int{}
	var order []string
	for _, genres := range recent {
		for _, g := range genres {
			if g = CleanTag(g); g != "" {
				if count[g] == 0 {
					order = append(order, g)
				}
				count[g]++
			}
		}
	}
	// Most common first; the stable sort keeps first-seen order for ties.
	slices.SortStableFunc(order, func(a, b string) int { return count[b] - count[a] })
	for _, g := range order {
		if len(out) == maxLabelTags-1 {
			break // the last slot is the city's
		}
		add(g)
	}
	city, _, _ := strings.Cut(location, ",")
	add(city)
	return out
}
