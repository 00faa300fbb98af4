package schema

import "testing"

func TestLinkAndJunctions(t *testing.T) {
	c := &Cache{Tables: map[QI]*Table{}}
	add := func(name string, pk []string, uniques ...[]string) *Table {
		tb := NewTable("public", name, "r", nil)
		tb.PK, tb.Uniques = pk, uniques
		c.Tables[tb.QI()] = tb
		return tb
	}
	fk := func(name string, from *Table, cols []string, to *Table) *FK {
		k := &FK{Name: name, From: from.QI(), FromCols: cols, To: to.QI(), ToCols: []string{"id"}}
		from.FKs = append(from.FKs, k)
		to.Refs = append(to.Refs, k)
		return k
	}
	a, b := add("a", []string{"id"}), add("b", []string{"id"})
	byPK := add("a_ext", []string{"a_id"})
	byUnique := add("a_card", []string{"id"}, []string{"a_id"})
	plain := add("a_log", []string{"id"}, []string{"a_id", "at"})
	j := add("a_b", []string{"a_id", "b_id"})
	ju := add("a_b_u", []string{"id"}, []string{"b_id", "a_id"})
	notJ := add("a_b_loose", []string{"id"})
	f1 := fk("ext", byPK, []string{"a_id"}, a)
	f2 := fk("card", byUnique, []string{"a_id"}, a)
	f3 := fk("log", plain, []string{"a_id"}, a)
	fk("ja", j, []string{"a_id"}, a)
	fk("jb", j, []string{"b_id"}, b)
	fk("jua", ju, []string{"a_id"}, a)
	fk("jub", ju, []string{"b_id"}, b)
	fk("la", notJ, []string{"a_id"}, a)
	fk("lb", notJ, []string{"b_id"}, b)
	c.Link()
	if !f1.OneToOne || !f2.OneToOne || f3.OneToOne {
		t.Errorf("one-to-one: pk %v unique %v partial-unique %v", f1.OneToOne, f2.OneToOne, f3.OneToOne)
	}
	got := map[string]bool{}
	for _, jn := range c.Junctions(a) {
		got[jn.Table.Name+":"+jn.Src.Name+">"+jn.Dst.Name] = true
	}
	if len(got) != 2 || !got["a_b:ja>jb"] || !got["a_b_u:jua>jub"] {
		t.Errorf("junctions of a: %v", got)
	}
	if n := len(c.Junctions(b)); n != 2 {
		t.Errorf("junctions of b: %d", n)
	}
}
