package rest

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

// media is the response representation.
type media int

const (
	mediaJSON media = iota
	mediaObject
	mediaCSV
	mediaOpenAPI
	mediaGeoJSON
)

const (
	ctJSON    = "application/json; charset=utf-8"
	ctObject  = "application/vnd.pgrst.object+json; charset=utf-8"
	ctCSV     = "text/csv; charset=utf-8"
	ctOpenAPI = "application/openapi+json; charset=utf-8"
	ctGeoJSON = "application/geo+json; charset=utf-8"
)

// accepted is the representation negotiated for a response.
type accepted struct {
	media media
	// strip is nulls=stripped on the pgrst media types.
	strip bool
	// plan, when set, asks for the statement's plan instead of its result.
	plan *planSpec
}

// negotiate picks the representation from Accept, highest q first.
// planOK says whether plans may be requested (DB_PLAN_ENABLED).
func negotiate(accept string, root, planOK bool) (accepted, error) {
	accept = strings.TrimSpace(accept)
	if accept == "" {
		if root {
			return accepted{media: mediaOpenAPI}, nil
		}
		return accepted{media: mediaJSON}, nil
	}
	type cand struct {
		typ    string
		strip  bool
		q      float64
		i      int
		params map[string]string
	}
	var cands []cand
	var names []string
	for i, part := range strings.Split(accept, ",") {
		fields := strings.Split(part, ";")
		c := cand{typ: strings.ToLower(strings.TrimSpace(fields[0])), q: 1, i: i, params: map[string]string{}}
		for _, p := range fields[1:] {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
			c.params[k] = v
			switch k {
			case "q":
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					c.q = f
				}
			case "nulls":
				c.strip = v == "stripped"
			}
		}
		names = append(names, strings.TrimSpace(part))
		if c.q > 0 {
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].q > cands[b].q })
	for _, c := range cands {
		switch c.typ {
		case "*/*", "application/*":
			if root {
				return accepted{media: mediaOpenAPI}, nil
			}
			return accepted{media: mediaJSON}, nil
		case "application/json":
			return accepted{media: mediaJSON}, nil
		case "application/vnd.pgrst.array+json", "application/vnd.pgrst.array":
			return accepted{media: mediaJSON, strip: c.strip}, nil
		case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
			if !root {
				return accepted{media: mediaObject, strip: c.strip}, nil
			}
		case "text/csv", "text/*":
			if !root {
				return accepted{media: mediaCSV}, nil
			}
		case "application/geo+json":
			if !root {
				return accepted{media: mediaGeoJSON}, nil
			}
		case "application/openapi+json":
			if root {
				return accepted{media: mediaOpenAPI}, nil
			}
		case "application/vnd.pgrst.plan", "application/vnd.pgrst.plan+json", "application/vnd.pgrst.plan+text":
			if root {
				continue
			}
			if !planOK {
				return accepted{}, planDisabled(accept)
			}
			if p, m, ok := parsePlan(c.typ, c.params); ok {
				return accepted{media: m, plan: p}, nil
			}
		}
	}
	return accepted{}, apierr.New(http.StatusNotAcceptable, pgrst.CodeMediaType, "None of these media types are available: %s", strings.Join(names, ", "))
}

// prefs is the parsed Prefer header.
type prefs struct {
	ret            string // minimal, headers-only, representation ("" = unset)
	count          string // exact, planned, estimated
	resolution     string // merge, ignore
	missingDefault bool
	strict         bool
	lenient        bool
	// maxAffected is max-affected=N; it only binds with handling=strict.
	maxAffected *int64
	// tx is tx=commit or tx=rollback; it only binds when DB_TX_END allows
	// the override.
	tx      string
	invalid []string
}

func parsePrefer(h http.Header) prefs {
	var p prefs
	for _, line := range h.Values("Prefer") {
		for _, item := range strings.Split(line, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			switch item {
			case "return=minimal", "return=headers-only", "return=representation":
				p.ret = strings.TrimPrefix(item, "return=")
			case "count=exact", "count=planned", "count=estimated":
				p.count = strings.TrimPrefix(item, "count=")
			case "resolution=merge-duplicates":
				p.resolution = "merge"
			case "resolution=ignore-duplicates":
				p.resolution = "ignore"
			case "missing=default":
				p.missingDefault = true
			case "missing=null":
				p.missingDefault = false
			case "handling=strict":
				p.strict = true
			case "tx=commit", "tx=rollback":
				p.tx = strings.TrimPrefix(item, "tx=")
			case "handling=lenient":
				p.lenient = true
			case "params=single-object":
			default:
				if n, ok := strings.CutPrefix(item, "max-affected="); ok {
					if v, err := strconv.ParseInt(n, 10, 64); err == nil && v >= 0 {
						p.maxAffected = &v
						continue
					}
				}
				if !strings.HasPrefix(item, "timezone=") {
					p.invalid = append(p.invalid, item)
				}
			}
		}
	}
	return p
}

func (p prefs) check() error {
	if p.strict && len(p.invalid) > 0 {
		e := apierr.New(http.StatusBadRequest, pgrst.CodeStrictPrefs, "Invalid preferences given with handling=strict")
		e.Details = "Invalid preferences: " + strings.Join(p.invalid, ", ")
		return e
	}
	return nil
}

// strictMax is the max-affected bound in force: only with handling=strict,
// as in PostgREST.
func (p prefs) strictMax() *int64 {
	if !p.strict {
		return nil
	}
	return p.maxAffected
}

// applied lists the preferences honoured, for Preference-Applied. txOK
// says whether the server lets a request choose how its transaction ends.
func (p prefs) applied(write, txOK bool) string {
	// PostgREST's order: resolution, missing, return, count, tx, handling.
	var out []string
	if write {
		switch p.resolution {
		case "merge":
			out = append(out, "resolution=merge-duplicates")
		case "ignore":
			out = append(out, "resolution=ignore-duplicates")
		}
		if p.missingDefault {
			out = append(out, "missing=default")
		}
	}
	if p.ret != "" && write {
		out = append(out, "return="+p.ret)
	}
	if p.count != "" {
		out = append(out, "count="+p.count)
	}
	if p.tx != "" && txOK {
		out = append(out, "tx="+p.tx)
	}
	if p.strict {
		out = append(out, "handling=strict")
		if p.maxAffected != nil {
			out = append(out, "max-affected="+strconv.FormatInt(*p.maxAffected, 10))
		}
	} else if p.lenient {
		out = append(out, "handling=lenient")
	}
	return strings.Join(out, ", ")
}

// rangeHeader parses Range: [items=]lower-[upper].
func rangeHeader(h http.Header) (lower int64, upper *int64, ok bool) {
	v := strings.TrimSpace(h.Get("Range"))
	if v == "" {
		return 0, nil, false
	}
	v = strings.TrimPrefix(v, "items=")
	lo, hi, found := strings.Cut(v, "-")
	if !found {
		return 0, nil, false
	}
	l, err := strconv.ParseInt(strings.TrimSpace(lo), 10, 64)
	if err != nil || l < 0 {
		return 0, nil, false
	}
	if strings.TrimSpace(hi) == "" {
		return l, nil, true
	}
	u, err := strconv.ParseInt(strings.TrimSpace(hi), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	return l, &u, true
}
