package query

import (
	"net/http"
	"sort"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Overload resolution: which function a /rpc request names, by PostgREST
// 14's rules. Argument types never decide; names and defaults do.

// Body media a POST to /rpc may carry, which decide the single unnamed
// parameter it can be passed to whole.
const (
	MediaJSON  = "json"  // application/json (and no Content-Type)
	MediaText  = "text"  // text/plain
	MediaXML   = "xml"   // text/xml
	MediaBytea = "bytea" // application/octet-stream
	MediaOther = ""      // anything else (form, CSV): named arguments only
)

// CallInput is what a request offers a function.
type CallInput struct {
	// Keys are the argument names: a POST body's keys, a GET's query
	// parameters that are not filters.
	Keys []string
	Post bool
	// Media is the POST body's kind (Media*).
	Media string
}

// Resolved is the chosen overload and how it takes the request.
type Resolved struct {
	Func *schema.Func
	// Whole says the function has a single unnamed parameter that takes
	// the whole body, as PostgREST passes it.
	Whole bool
}

// ResolveFunc picks schema.name's overload for in:
//
//   - an overload whose parameters fit the keys (every required parameter
//     named, no key that is not a parameter) is chosen when it is the only
//     one that fits;
//   - otherwise, for a POST, the overload with a single unnamed parameter
//     of the body's type (json/jsonb for JSON, text, xml, bytea);
//   - several that fit is PGRST203 listing them, none is PGRST202.
//
// Only functions /rpc may call are candidates (schema.Func.Callable).
func ResolveFunc(c *schema.Cache, sch, name string, in CallInput) (Resolved, error) {
	overloads := callable(c.Funcs[schema.QI{Schema: sch, Name: name}])
	var fit, whole []*schema.Func
	for _, f := range overloads {
		switch {
		case fitsKeys(f, in):
			fit = append(fit, f)
		case takesWhole(f, in):
			whole = append(whole, f)
		}
	}
	switch {
	case len(fit) == 1:
		return Resolved{Func: fit[0], Whole: isSingleUnnamed(fit[0])}, nil
	case len(fit) > 1:
		return Resolved{}, ambiguous(fit)
	case len(whole) == 1:
		return Resolved{Func: whole[0], Whole: true}, nil
	case len(whole) > 1:
		return Resolved{}, ambiguous(whole)
	}
	return Resolved{}, noFunction(c, sch, name, in, overloads)
}

// callable keeps the overloads /rpc can call, in PostgREST's order: fewer
// parameters first, then by description and parameters.
func callable(all []*schema.Func) []*schema.Func {
	var out []*schema.Func
	for _, f := range all {
		if f.Callable() {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return funcLess(out[i], out[j]) })
	return out
}

func funcLess(a, b *schema.Func) bool {
	if len(a.Params) != len(b.Params) {
		return len(a.Params) < len(b.Params)
	}
	if a.Description != b.Description {
		return a.Description < b.Description
	}
	for i := range a.Params {
		pa, pb := a.Params[i], b.Params[i]
		switch {
		case pa.Name != pb.Name:
			return pa.Name < pb.Name
		case pa.Type != pb.Type:
			return pa.Type < pb.Type
		case pa.HasDefault != pb.HasDefault:
			// PostgREST compares "required", where false sorts first.
			return pa.HasDefault
		}
	}
	return a.OID < b.OID
}

// fitsKeys is PostgREST's match by names: a function without parameters
// takes no keys (nor a raw body); otherwise the keys, less the optional
// parameters, are exactly the required ones.
func fitsKeys(f *schema.Func, in CallInput) bool {
	if len(f.Params) == 0 {
		raw := in.Post && (in.Media == MediaText || in.Media == MediaXML || in.Media == MediaBytea)
		return len(in.Keys) == 0 && !raw
	}
	required, optional := map[string]bool{}, map[string]bool{}
	for _, p := range f.Params {
		if p.HasDefault {
			optional[p.Name] = true
		} else {
			required[p.Name] = true
		}
	}
	seen := map[string]bool{}
	for _, k := range in.Keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		if optional[k] {
			continue
		}
		if !required[k] {
			return false
		}
	}
	for k := range required {
		if !seen[k] {
			return false
		}
	}
	return true
}

func isSingleUnnamed(f *schema.Func) bool { return len(f.Params) == 1 && f.Params[0].Name == "" }

// takesWhole says whether a POST body of in.Media goes whole to f's single
// unnamed parameter.
func takesWhole(f *schema.Func, in CallInput) bool {
	if !in.Post || !isSingleUnnamed(f) {
		return false
	}
	switch t := f.Params[0].Type; in.Media {
	case MediaJSON:
		return t == "json" || t == "jsonb"
	case MediaText, MediaXML, MediaBytea:
		return t == in.Media
	}
	return false
}

// ambiguous is PGRST203 (300) naming the candidates that fit, unnamed
// parameters shown as " => type".
func ambiguous(fs []*schema.Func) *apierr.Error {
	sigs := make([]string, len(fs))
	for i, f := range fs {
		ps := make([]string, len(f.Params))
		for j, p := range f.Params {
			ps[j] = p.Name + " => " + p.Type
		}
		sigs[i] = f.Schema + "." + f.Name + "(" + strings.Join(ps, ", ") + ")"
	}
	e := apierr.New(http.StatusMultipleChoices, pgrst.CodeAmbiguousFunction, "Could not choose the best candidate function between: %s", strings.Join(sigs, ", "))
	e.Hint = "Try renaming the parameters or the function itself in the database so function overloading can be resolved"
	return e
}

// noFunction is PGRST202 in PostgREST's words. The hint is PostgREST's
// fuzzy match: over the schema's callable function names when none has
// this name (a score of 0.75: computed fields' functions such as f(tbl),
// which are not callable, get no look-alike), else over the overloads'
// sorted parameter lists (0.33); none for a raw body, and none when
// nothing is close.
func noFunction(c *schema.Cache, sch, name string, in CallInput, overloads []*schema.Func) *apierr.Error {
	keys := uniqueSorted(in.Keys)
	fq := sch + "." + name
	raw := in.Post && (in.Media == MediaText || in.Media == MediaXML || in.Media == MediaBytea)
	msg, det := fq, " without parameters"
	if len(keys) > 0 {
		det = " with parameter"
		if len(keys) > 1 {
			det += "s"
		}
		det += " " + strings.Join(keys, ", ")
	}
	if !raw {
		if len(keys) == 0 {
			msg += " without parameters"
		} else {
			msg += "(" + strings.Join(keys, ", ") + ")"
		}
	}
	switch {
	case raw:
		det = " with a single unnamed " + in.Media + " parameter"
	case in.Post && in.Media == MediaJSON:
		det += " or with a single unnamed json/jsonb parameter"
	}
	e := apierr.New(http.StatusNotFound, pgrst.CodeFunctionNotFound, "Could not find the function %s in the schema cache", msg)
	e.Details = "Searched for the function " + fq + det + ", but no matches were found in the schema cache."
	if raw {
		return e
	}
	if len(overloads) == 0 {
		if s, ok := schema.NewFuzzySet(c.CallableFuncNames(sch)).ClosestAbove(name, schema.NameHintScore); ok {
			e.Hint = "Perhaps you meant to call the function " + sch + "." + s
		}
		return e
	}
	lists := make([]string, len(overloads))
	for i, f := range overloads {
		ps := make([]string, len(f.Params))
		for j, p := range f.Params {
			ps[j] = p.Name
		}
		sort.Strings(ps)
		lists[i] = "(" + strings.Join(ps, ", ") + ")"
	}
	if s, ok := schema.NewFuzzySet(lists).Closest("(" + strings.Join(keys, ", ") + ")"); ok {
		e.Hint = "Perhaps you meant to call the function " + fq + s
	}
	return e
}

func uniqueSorted(keys []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// IsFilterValue says whether a GET /rpc query value is a filter on the
// result ([not.]op[(mod)].value) rather than an argument, as PostgREST
// tells them apart.
func IsFilterValue(v string) bool {
	v = strings.TrimPrefix(v, "not.")
	i := 0
	for i < len(v) && v[i] >= 'a' && v[i] <= 'z' {
		i++
	}
	if _, ok := operators[v[:i]]; !ok || i == len(v) {
		return false
	}
	return v[i] == '.' || v[i] == '('
}
