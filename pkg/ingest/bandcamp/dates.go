package bandcamp

import (
	"regexp"
	"strings"
	"time"
)

// ParseDate reads Bandcamp's "05 Jan 2024 00:00:00 GMT" (every JSON date on
// release pages) and returns the UTC calendar date. A non-midnight time
// means the artist set no date and Bandcamp used the publishing moment;
// the day is still the best date there is.
func ParseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2 Jan 2006 15:04:05 MST", time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			t = t.UTC()
			return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC), true
		}
	}
	return time.Time{}, false
}

var proseDate = regexp.MustCompile(`releas(?:ed|es) ((?:[a-z]+ \d{1,2}, \d{4})|(?:\d{1,2} [a-z]+ \d{4}))`)

// ProseDate reads the credits line, "released September 14, 2013" or
// "released 14 September 2013" ("releases …" on a pre-order), the last
// resort when a page has no JSON dates.
func ProseDate(s string) (time.Time, bool) {
	m := proseDate.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return time.Time{}, false
	}
	for _, layout := range []string{"January 2, 2006", "2 January 2006"} {
		if t, err := time.Parse(layout, titleMonth(m[1])); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// titleMonth capitalises the month name the regexp saw in lower case, as
// time.Parse wants it.
func titleMonth(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if w[0] >= 'a' && w[0] <= 'z' {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
