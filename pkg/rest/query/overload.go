package query

import (
	"net/http"
	"sort"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// Overload resolution: which function a /rpc request names.
// ResolveFunc picks the overload of schema.name whose parameter names fit
// the given argument keys. For GET, keys that are not parameters of the
// chosen function are filters, so it prefers the overload that uses most
// keys. post says whether a single unnamed json parameter may take the
// whole body.
func ResolveFunc(c *schema.Cache, sch, name string, keys []string, post, bodyIsObject bool) (*schema.Func, bool, error) {
	overloads := c.Funcs[schema.QI{Schema: sch, Name: name}]
	var best *schema.Func
	bestUsed, ties := -1, 0
	var single *schema.Func
	for _, f := range overloads {
		if len(f.Params) == 1 && f.Params[0].Name == "" && (f.Params[0].Type == "json" || f.Params[0].Type == "jsonb") {
			single = f
			continue
		}
		names := map[string]bool{}
		ok := true
		for _, p := range f.Params {
			if p.Name == "" {
				ok = false
				break
			}
			names[p.Name] = true
		}
		if !ok {
			continue
		}
		used := 0
		for _, k := range keys {
			if names[k] {
				used++
			} else if post {
				ok = false
			}
		}
		given := map[string]bool{}
		for _, k := range keys {
			given[k] = true
		}
		for _, p := range f.Params {
			if !p.HasDefault && !given[p.Name] {
				ok = false
			}
		}
		if !ok {
			continue
		}
		switch {
		case used > bestUsed:
			best, bestUsed, ties = f, used, 1
		case used == bestUsed:
			ties++
		}
	}
	if best != nil && ties > 1 {
		var sigs []string
		for _, f := range overloads {
			var ps []string
			for _, p := range f.Params {
				ps = append(ps, p.Name+" => "+p.Type)
			}
			sigs = append(sigs, f.Schema+"."+f.Name+"("+strings.Join(ps, ", ")+")")
		}
		e := apierr.New(http.StatusMultipleChoices, pgrst.CodeAmbiguousFunction, "Could not choose the best candidate function between: %s", strings.Join(sigs, ", "))
		e.Hint = "Try renaming the parameters or the function itself in the database so function overloading can be resolved"
		return nil, false, e
	}
	if best != nil {
		return best, false, nil
	}
	if single != nil && (post || len(keys) == 0) && (bodyIsObject || post) {
		return single, post, nil
	}
	sorted := append([]string(nil), keys...)
	sort.Strings(sorted)
	fq := sch + "." + name
	msg := fq + "(" + strings.Join(sorted, ", ") + ")"
	det := " with parameter"
	if len(sorted) > 1 {
		det += "s"
	}
	det += " " + strings.Join(sorted, ", ")
	if len(sorted) == 0 {
		msg = fq + " without parameters"
		det = " without parameters"
	}
	if post {
		det += " or with a single unnamed json/jsonb parameter"
	}
	e := apierr.New(http.StatusNotFound, pgrst.CodeFunctionNotFound, "Could not find the function %s in the schema cache", msg)
	e.Details = "Searched for the function " + fq + det + ", but no matches were found in the schema cache."
	if len(overloads) == 0 {
		if s := schema.Closest(name, c.FuncNames(sch)); s != "" {
			e.Hint = "Perhaps you meant to call the function " + sch + "." + s
		}
	} else {
		var best string
		bestScore := -1
		for _, f := range overloads {
			var ps []string
			score := 0
			for _, p := range f.Params {
				ps = append(ps, p.Name)
				if contains(sorted, p.Name) {
					score++
				}
			}
			sort.Strings(ps)
			if score > bestScore {
				best, bestScore = sch+"."+name+"("+strings.Join(ps, ", ")+")", score
			}
		}
		e.Hint = "Perhaps you meant to call the function " + best
	}
	return nil, false, e
}

// ResolveUnnamed finds schema.name's overload with a single unnamed
// parameter of type typ (text or xml), which a raw request body of that
// media type is passed to whole.
func ResolveUnnamed(c *schema.Cache, sch, name, typ string) (*schema.Func, error) {
	for _, f := range c.Funcs[schema.QI{Schema: sch, Name: name}] {
		if len(f.Params) == 1 && f.Params[0].Name == "" && f.Params[0].Type == typ {
			return f, nil
		}
	}
	e := apierr.New(http.StatusNotFound, pgrst.CodeFunctionNotFound, "Could not find the function %s.%s in the schema cache", sch, name)
	e.Details = "Searched for the function " + sch + "." + name + " with a single unnamed " + typ + " parameter, but no matches were found in the schema cache."
	return nil, e
}
