package pgchanges

import (
	"context"

	"github.com/labelbase/labelbase/pkg/db"
)

// subscriberSet is one joined channel's bindings and its Deliver.
type subscriberSet struct {
	subs    []binding
	deliver Deliver
}

// binding is a Subscription with its filter parsed once.
type binding struct {
	Subscription
	conds []condition
	bad   bool // the filter did not parse: it matches nothing
}

// relKey indexes subscriptions by table; "schema.*" holds those that
// asked for every table of a schema.
func relKey(schema, table string) string {
	if table == "" {
		table = "*"
	}
	return schema + "." + table
}

// Subscribe registers one joined channel's bindings; the changes they
// match, and that their role and claims may see, go to deliver until
// cancel is called. Bindings are expected to have passed Check.
func (s *Service) Subscribe(subs []Subscription, deliver Deliver) (cancel func()) {
	set := &subscriberSet{deliver: deliver}
	for _, sub := range subs {
		conds, err := parseFilter(sub.Filter)
		// The role is switched to inside the RLS check: only API roles.
		bad := err != nil || db.CheckRole(sub.Role) != nil
		set.subs = append(set.subs, binding{Subscription: sub, conds: conds, bad: bad})
	}
	keys := map[string]bool{}
	s.mu.Lock()
	for _, b := range set.subs {
		k := relKey(b.Schema, b.Table)
		keys[k] = true
		if s.byRel[k] == nil {
			s.byRel[k] = map[*subscriberSet]struct{}{}
		}
		s.byRel[k][set] = struct{}{}
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for k := range keys {
			delete(s.byRel[k], set)
			if len(s.byRel[k]) == 0 {
				delete(s.byRel, k)
			}
		}
	}
}

// candidates snapshots the sets subscribed to a table.
func (s *Service) candidates(schema, table string) []*subscriberSet {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []*subscriberSet
	seen := map[*subscriberSet]bool{}
	for _, k := range []string{relKey(schema, table), relKey(schema, "*")} {
		for set := range s.byRel[k] {
			if !seen[set] {
				seen[set] = true
				out = append(out, set)
			}
		}
	}
	return out
}

// group is one distinct (role, claims) among a change's receivers: the
// unit of an RLS decision.
type group struct {
	role   string
	claims string
}

// target is one set's matching binding ids under one group.
type target struct {
	set   *subscriberSet
	ids   []int
	group int
}

func (s *Service) dispatchRaw(ctx context.Context, raw []byte) {
	c, err := decodeChange(raw)
	if err != nil {
		s.log.Warn("postgres_changes: dropped an undecodable change", "err", err)
		return
	}
	s.dispatch(ctx, c)
}

// dispatch routes one change: match bindings (table, event, filter),
// group the receivers by (role, claims), decide visibility per group in
// one statement, and hand the one payload to every set that may see it.
func (s *Service) dispatch(ctx context.Context, c *change) {
	row := c.New
	if c.Kind == "DELETE" {
		row = c.Old
		if c.RLS || c.OldKeyOnly {
			row = keyOnly(c, c.Old) // filter only on what is delivered
		}
	}
	groups, targets := s.match(c, row)
	if len(targets) == 0 {
		return
	}
	visible := make([]bool, len(groups))
	for i := range visible {
		visible[i] = true
	}
	if c.RLS && c.Kind != "DELETE" {
		visible = s.visible(ctx, c, groups)
	}
	data := c.payload()
	for _, t := range targets {
		if visible[t.group] {
			s.delivered.Add(1)
			t.set.deliver(t.ids, data)
		}
	}
}

// match finds the bindings a change satisfies, as targets per (set,
// group), and the distinct groups among them.
func (s *Service) match(c *change, row []value) ([]group, []target) {
	var groups []group
	index := map[group]int{}
	var targets []target
	for _, set := range s.candidates(c.Schema, c.Table) {
		byGroup := map[int]int{} // group → index in targets
		for _, b := range set.subs {
			if b.bad || b.Schema != c.Schema || (b.Table != "" && b.Table != "*" && b.Table != c.Table) {
				continue
			}
			if b.Event != "*" && b.Event != c.Kind {
				continue
			}
			if !matches(b.conds, c, row) {
				continue
			}
			g := group{role: b.Role, claims: string(b.Claims)}
			gi, ok := index[g]
			if !ok {
				gi = len(groups)
				index[g] = gi
				groups = append(groups, g)
			}
			ti, ok := byGroup[gi]
			if !ok {
				ti = len(targets)
				byGroup[gi] = ti
				targets = append(targets, target{set: set, group: gi})
			}
			targets[ti].ids = appendUnique(targets[ti].ids, b.ID)
		}
	}
	return groups, targets
}

func appendUnique(ids []int, id int) []int {
	for _, x := range ids {
		if x == id {
			return ids
		}
	}
	return append(ids, id)
}

// keyOnly blanks every non-key value of row.
func keyOnly(c *change, row []value) []value {
	out := make([]value, len(row))
	for i, v := range row {
		if i < len(c.Columns) && c.Columns[i].Key {
			out[i] = v
		} else {
			out[i] = value{Missing: true}
		}
	}
	return out
}
