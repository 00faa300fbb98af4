package schema

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// FuzzySet finds the closest of a set of names the way PostgREST's hints
// do (it uses the Haskell fuzzyset package, a port of fuzzyset.js): cosine
// similarity of character 3-grams (2-grams when no 3-gram is shared) of
// the lowercased names stripped to letters, digits, spaces and commas and
// framed by '-', then the 50 best rescored by normalised Levenshtein
// similarity; a match needs a score of at least 0.33 (Closest) or a
// caller's minimum (ClosestAbove), and an exact (case-insensitive) name
// scores 1. It is written here because no Go
// library implements this exact scoring, and PostgREST's hints are only
// reproduced by the same arithmetic.
type FuzzySet struct {
	exact map[string]string
	items map[int][]fuzzyItem
	// grams maps a gram to the items holding it, per gram size.
	grams map[int]map[string][]gramRef
}

type fuzzyItem struct {
	norm  float64
	lower string
	value string
}

type gramRef struct {
	item  int
	count int
}

const (
	fuzzyGramLower = 2
	fuzzyGramUpper = 3
	fuzzyMinScore  = 0.33
)

// NameHintScore is the score a function name must reach to be hinted.
// PostgREST's getFuzzyHint asks 0.75 of table and function names (a typo,
// not a look-alike: the hint must not let a caller enumerate a schema)
// and keeps the library's 0.33 for parameter lists.
const NameHintScore = 0.75

// NewFuzzySet indexes values.
func NewFuzzySet(values []string) *FuzzySet {
	fs := &FuzzySet{exact: map[string]string{}, items: map[int][]fuzzyItem{}, grams: map[int]map[string][]gramRef{}}
	for size := fuzzyGramLower; size <= fuzzyGramUpper; size++ {
		fs.grams[size] = map[string][]gramRef{}
	}
	for _, v := range values {
		lower := strings.ToLower(v)
		if _, dup := fs.exact[lower]; dup {
			continue
		}
		fs.exact[lower] = v
		for size := fuzzyGramLower; size <= fuzzyGramUpper; size++ {
			counts := gramCounts(lower, size)
			idx := len(fs.items[size])
			fs.items[size] = append(fs.items[size], fuzzyItem{norm: magnitude(counts), lower: lower, value: v})
			for g, n := range counts {
				fs.grams[size][g] = append(fs.grams[size][g], gramRef{idx, n})
			}
		}
	}
	return fs
}

// Closest returns the best match for value and whether there is one.
func (fs *FuzzySet) Closest(value string) (string, bool) {
	return fs.ClosestAbove(value, fuzzyMinScore)
}

// ClosestAbove is Closest with a higher minimum score.
func (fs *FuzzySet) ClosestAbove(value string, minScore float64) (string, bool) {
	lower := strings.ToLower(value)
	if v, ok := fs.exact[lower]; ok {
		return v, true
	}
	// The larger grams first; a size without any match good enough falls
	// through to the smaller one.
	for size := fuzzyGramUpper; size >= fuzzyGramLower; size-- {
		if best, ok := fs.match(lower, size, minScore); ok {
			return best, true
		}
	}
	return "", false
}

type scored struct {
	score float64
	item  int
}

func (fs *FuzzySet) match(lower string, size int, minScore float64) (string, bool) {
	counts := gramCounts(lower, size)
	dots := map[int]int{}
	for g, n := range counts {
		for _, r := range fs.grams[size][g] {
			dots[r.item] += n * r.count
		}
	}
	if len(dots) == 0 {
		return "", false
	}
	norm := magnitude(counts)
	items := fs.items[size]
	results := make([]scored, 0, len(dots))
	for i, d := range dots {
		results = append(results, scored{float64(d) / (norm * items[i].norm), i})
	}
	sortScored(results, items)
	if len(results) > 50 {
		results = results[:50]
	}
	for i := range results {
		results[i].score = similarity(items[results[i].item].lower, lower)
	}
	sortScored(results, items)
	if results[0].score < minScore {
		return "", false
	}
	return items[results[0].item].value, true
}

// sortScored orders by score, best first; equal scores keep the order the
// values were added in, so the answer does not depend on map iteration.
func sortScored(r []scored, items []fuzzyItem) {
	sort.SliceStable(r, func(i, j int) bool {
		if r[i].score != r[j].score {
			return r[i].score > r[j].score
		}
		return r[i].item < r[j].item
	})
}

// gramCounts counts the size-grams of "-" + the name's letters, digits,
// spaces and commas + "-", padded with '-' to at least one gram.
func gramCounts(lower string, size int) map[string]int {
	var b strings.Builder
	b.WriteByte('-')
	for _, r := range lower {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == ',' {
			b.WriteRune(r)
		}
	}
	b.WriteByte('-')
	s := []rune(b.String())
	for len(s) < size {
		s = append(s, '-')
	}
	out := map[string]int{}
	for i := 0; i+size <= len(s); i++ {
		out[string(s[i:i+size])]++
	}
	return out
}

func magnitude(counts map[string]int) float64 {
	sum := 0
	for _, n := range counts {
		sum += n * n
	}
	return math.Sqrt(float64(sum))
}

// similarity is 1 - Levenshtein distance / the longer length.
func similarity(a, b string) float64 {
	la, lb := len([]rune(a)), len([]rune(b))
	if la == 0 && lb == 0 {
		return 1
	}
	return 1 - float64(levenshtein(a, b))/float64(max(la, lb))
}

// Closest returns the candidate most similar to name, or "" when none is
// close enough to be a plausible typo.
func Closest(name string, candidates []string) string {
	best, bestDist := "", -1
	for _, cand := range candidates {
		if cand == name {
			continue
		}
		d := levenshtein(strings.ToLower(name), strings.ToLower(cand))
		limit := max(len(name), len(cand)) / 3
		if limit < 2 {
			limit = 2
		}
		if strings.Contains(strings.ToLower(cand), strings.ToLower(name)) || strings.Contains(strings.ToLower(name), strings.ToLower(cand)) {
			d = min(d, max(len(cand)-len(name), len(name)-len(cand)))
		}
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = cand, d
		}
	}
	return best
}

// Levenshtein is the edit distance (insert, delete, substitute: 1 each)
// between a and b, in runes.
func Levenshtein(a, b string) int { return levenshtein(a, b) }

func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
