package schema

import "sort"

// Callable says whether /rpc may call the function, as PostgREST's schema
// cache decides: every input parameter is named, or exactly one is not
// and the first parameter is bytea, json, jsonb, text or xml (its body is
// then passed whole). Other functions with unnamed parameters (computed
// fields such as f(tbl)) stay out of /rpc and out of its hints.
func (f *Func) Callable() bool {
	unnamed := 0
	for _, p := range f.Params {
		if p.Name == "" {
			unnamed++
		}
	}
	switch unnamed {
	case 0:
		return true
	case 1:
		switch f.Params[0].Type {
		case "bytea", "json", "jsonb", "text", "xml":
			return true
		}
	}
	return false
}

// CallableFuncNames lists the functions of schema /rpc can call, sorted.
func (c *Cache) CallableFuncNames(schema string) []string {
	var out []string
	for q, fs := range c.Funcs {
		if q.Schema != schema {
			continue
		}
		for _, f := range fs {
			if f.Callable() {
				out = append(out, q.Name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}
