package query

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/schema"
)

// rel is how an embed reaches its table.
type rel struct {
	// fk is the foreign key between parent and embed; for many-to-many,
	// the one from the junction to the parent.
	fk *schema.FK
	// forward: the parent holds fk (many-to-one or one-to-one).
	forward bool
	// single: the embed is an object (or null), not an array.
	single bool
	// jn is set for many-to-many; jalias names the junction in SQL.
	jn     *schema.Junction
	jalias string
	// fn is set for a computed relationship: a function of the parent row
	// returning the embedded rows.
	fn *schema.Func
}

func (r rel) target() schema.QI {
	switch {
	case r.fn != nil:
		return *r.fn.RetRel
	case r.jn != nil:
		return r.jn.Dst.To
	case r.forward:
		return r.fk.To
	}
	return r.fk.From
}

func (r rel) cardinality() string {
	switch {
	case r.jn != nil:
		return "many-to-many"
	case r.fk.OneToOne:
		return "one-to-one"
	case r.forward:
		return "many-to-one"
	}
	return "one-to-many"
}

// describe is PostgREST's text for a relationship in PGRST201 details,
// from the embedding table's side: "fk using parent(cols) and target(cols)".
func (r rel) describe() string {
	if r.jn != nil {
		return fmt.Sprintf("%s using %s(%s) and %s(%s)", r.jn.Table.Name, r.jn.Src.Name, strings.Join(r.jn.Src.FromCols, ", "),
			r.jn.Dst.Name, strings.Join(r.jn.Dst.FromCols, ", "))
	}
	if !r.forward {
		return fmt.Sprintf("%s using %s(%s) and %s(%s)", r.fk.Name, r.fk.To.Name, strings.Join(r.fk.ToCols, ", "), r.fk.From.Name, strings.Join(r.fk.FromCols, ", "))
	}
	return fmt.Sprintf("%s using %s(%s) and %s(%s)", r.fk.Name, r.fk.From.Name, strings.Join(r.fk.FromCols, ", "), r.fk.To.Name, strings.Join(r.fk.ToCols, ", "))
}

// hintName is what a !hint must say to pick this relationship.
func (r rel) hintName() string {
	if r.jn != nil {
		return r.jn.Table.Name
	}
	return r.fk.Name
}

func (r rel) matchesHint(h string) bool {
	if r.jn != nil {
		return r.jn.Table.Name == h
	}
	if r.fk.From == r.fk.To {
		// A table's foreign key to itself takes only its column as a hint
		// (children:messages!reply_to), as PostgREST: its constraint name
		// finds no relationship (PGRST200).
		return !r.forward && len(r.fk.FromCols) == 1 && r.fk.FromCols[0] == h
	}
	return r.fk.Name == h || contains(r.fk.FromCols, h) || contains(r.fk.ToCols, h)
}

// relationship finds the relationship an embed goes through: a foreign
// key either way (one-to-one when its columns are also a key) or a
// junction table.
func (b *Builder) relationship(parent *schema.Table, e *Embed) (rel, error) {
	if e.Hint == "" {
		// A computed relationship is chosen by its function's name, before
		// (and so overriding) foreign keys, as in PostgREST.
		if f := b.Cache.ComputedRel(parent, e.Name); f != nil {
			return rel{fn: f, single: f.SingleRow()}, nil
		}
	}
	// Candidates in PostgREST's order (as its PGRST201 details list them):
	// one-to-many, then many-to-one, then many-to-many.
	var fwd, cands []rel
	for _, fk := range parent.FKs {
		target := b.Cache.Tables[fk.To]
		if target == nil {
			continue
		}
		byTable := target.Name == e.Name && target != parent
		byColumn := len(fk.FromCols) == 1 && fk.FromCols[0] == e.Name && target.Kind != "v" && target.Kind != "m"
		// As PostgREST: a table's foreign key to itself is many-to-one only
		// by its column, without a hint (reply_to(...)); the table's own
		// name (or table!column) embeds the children. A column as the target
		// never considers views.
		if target == parent {
			if byColumn && e.Hint == "" {
				fwd = append(fwd, rel{fk: fk, forward: true, single: true})
			}
			continue
		}
		if byTable || fk.Name == e.Name || byColumn {
			fwd = append(fwd, rel{fk: fk, forward: true, single: true})
		}
	}
	for _, fk := range parent.Refs {
		src := b.Cache.Tables[fk.From]
		if src == nil {
			continue
		}
		if src.Name == e.Name || (fk.Name == e.Name && src != parent) {
			cands = append(cands, rel{fk: fk, single: fk.OneToOne})
		}
	}
	cands = append(cands, fwd...)
	for _, jn := range b.Cache.Junctions(parent) {
		if jn.Dst.To.Name == e.Name {
			cands = append(cands, rel{fk: jn.Src, jn: &jn})
		}
	}
	if e.Hint != "" {
		var kept []rel
		for _, c := range cands {
			if c.matchesHint(e.Hint) {
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	switch len(cands) {
	case 1:
		return cands[0], nil
	case 0:
		return rel{}, b.noRelationship(parent, e)
	default:
		return rel{}, ambiguousEmbed(parent, e, cands)
	}
}

// noRelationship is PGRST200, with PostgREST's hint of a close name among
// the tables parent relates to when the embed gave no hint.
func (b *Builder) noRelationship(parent *schema.Table, e *Embed) error {
	err := apierr.New(http.StatusBadRequest, pgrst.CodeNoRelationship, "Could not find a relationship between '%s' and '%s' in the schema cache", parent.Name, e.Name)
	using := ""
	if e.Hint != "" {
		using = "' using the hint '" + e.Hint
	}
	err.Details = fmt.Sprintf("Searched for a foreign key relationship between '%s' and '%s%s' in the schema '%s', but no matches were found.", parent.Name, e.Name, using, parent.Schema)
	if e.Hint != "" {
		return err
	}
	var related []string
	for _, fk := range parent.FKs {
		related = append(related, fk.To.Name)
	}
	for _, fk := range parent.Refs {
		related = append(related, fk.From.Name)
	}
	for _, jn := range b.Cache.Junctions(parent) {
		related = append(related, jn.Dst.To.Name)
	}
	if s := schema.Closest(e.Name, related); s != "" {
		err.Hint = fmt.Sprintf("Perhaps you meant '%s' instead of '%s'.", s, e.Name)
	}
	return err
}

// ambiguousEmbed is PGRST201 listing the candidates in PostgREST's words.
func ambiguousEmbed(parent *schema.Table, e *Embed, cands []rel) error {
	var details []map[string]string
	var hints []string
	for _, c := range cands {
		details = append(details, map[string]string{
			"cardinality":  c.cardinality(),
			"embedding":    parent.Name + " with " + e.Name,
			"relationship": c.describe(),
		})
		hints = append(hints, "'"+e.Name+"!"+c.hintName()+"'")
	}
	err := apierr.New(http.StatusMultipleChoices, pgrst.CodeAmbiguousEmbed, "Could not embed because more than one relationship was found for '%s' and '%s'", parent.Name, e.Name)
	err.Details = details
	err.Hint = fmt.Sprintf("Try changing '%s' to one of the following: %s. Find the desired relationship in the 'details' key.", e.Name, strings.Join(hints, ", "))
	return err
}

// joinCond ties an embed's rows to its parent row.
func joinCond(parentAlias string, e *embedLevel) string {
	if e.fn != nil {
		// The function already returns only the parent's rows.
		return "true"
	}
	var parts []string
	child := q(e.lvl.alias)
	parent := q(parentAlias)
	switch {
	case e.jn != nil:
		j := q(e.jalias)
		for i, c := range e.jn.Dst.FromCols {
			parts = append(parts, j+"."+q(c)+" = "+child+"."+q(e.jn.Dst.ToCols[i]))
		}
		for i, c := range e.jn.Src.FromCols {
			parts = append(parts, j+"."+q(c)+" = "+parent+"."+q(e.jn.Src.ToCols[i]))
		}
		return "EXISTS (SELECT 1 FROM " + qi(e.jn.Table) + " AS " + j + " WHERE " + strings.Join(parts, " AND ") + ")"
	case e.forward:
		for i := range e.fk.FromCols {
			parts = append(parts, child+"."+q(e.fk.ToCols[i])+" = "+parent+"."+q(e.fk.FromCols[i]))
		}
	default:
		for i := range e.fk.FromCols {
			parts = append(parts, child+"."+q(e.fk.FromCols[i])+" = "+parent+"."+q(e.fk.ToCols[i]))
		}
	}
	return strings.Join(parts, " AND ")
}

// fromItem is the FROM item an embed's rows come from: its table, or the
// computed relationship's function applied to the parent row.
func fromItem(parentAlias string, e *embedLevel) string {
	if e.fn != nil {
		return qiFunc(e.fn) + "(" + q(parentAlias) + ") AS " + q(e.lvl.alias)
	}
	return qi(e.lvl.t) + " AS " + q(e.lvl.alias)
}
