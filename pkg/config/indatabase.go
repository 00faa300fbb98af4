package config

import (
	"errors"
	"fmt"
)

// InDatabaseSettings lists the pgrst.* settings a database may set (those
// declared with .inDatabase), in declaration order.
func InDatabaseSettings() []string {
	var out []string
	for _, s := range declared() {
		if s.pgrst != "" {
			out = append(out, "pgrst."+s.pgrst)
		}
	}
	return out
}

// WithDatabaseSettings returns a copy of c with PostgREST's in-database
// settings applied (db maps a key without its "pgrst." prefix to its
// value), and the keys it applied, in declaration order. Each value is
// parsed by its setting's own declaration, PostgREST-style, and checked by
// its group's validation; an error names the pgrst.* setting. c is not
// changed.
func (c *Config) WithDatabaseSettings(db map[string]string) (*Config, []string, error) {
	out := *c
	var applied []string
	var errs []error
	for _, g := range groups {
		for _, s := range g.settings {
			v, ok := db[s.pgrst]
			if s.pgrst == "" || !ok {
				continue
			}
			// One setting at a time, on a trial copy, so an error is
			// attributed to the setting that caused it.
			trial := out
			p := parser{inDatabase: true, getenv: func(name string) string {
				if name == s.name {
					return v
				}
				return ""
			}}
			s.load(&p, &trial)
			if g.validate != nil && len(p.errs) == 0 {
				g.validate(&trial, &p)
			}
			if len(p.errs) > 0 {
				for _, e := range p.errs {
					errs = append(errs, fmt.Errorf("pgrst.%s: %w", s.pgrst, e))
				}
				continue
			}
			out = trial
			applied = append(applied, s.pgrst)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return &out, applied, nil
}
