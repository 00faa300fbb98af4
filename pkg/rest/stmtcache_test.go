package rest

import (
	"container/list"
	"fmt"
	"testing"
)

func TestStmtCacheEvictsLeastRecentlyUsed(t *testing.T) {
	sc := &stmtCache{names: map[string]*list.Element{}, lru: list.New()}
	first, ok := sc.lookup("SELECT 0")
	if ok {
		t.Fatal("an unseen statement reported as prepared")
	}
	sc.add("SELECT 0", first)
	for i := 1; i < stmtCacheCap; i++ {
		name, _ := sc.lookup(fmt.Sprint("SELECT ", i))
		sc.add(fmt.Sprint("SELECT ", i), name)
	}
	if name, ok := sc.lookup("SELECT 0"); !ok || name != first {
		t.Fatalf("SELECT 0 = %q %v, want %q prepared", name, ok, first)
	}
	// SELECT 0 was just used, so SELECT 1 is the least recent one.
	name, _ := sc.lookup("SELECT new")
	sc.add("SELECT new", name)
	stale := sc.takeStale()
	if len(stale) != 1 {
		t.Fatalf("evicted %v, want one", stale)
	}
	if _, ok := sc.lookup("SELECT 1"); ok {
		t.Fatal("SELECT 1 should have been evicted")
	}
	if len(sc.takeStale()) != 0 {
		t.Fatal("takeStale must forget what it returned")
	}
	sc.dropAll()
	if got := len(sc.takeStale()); got != stmtCacheCap {
		t.Fatalf("dropAll queued %d names, want %d", got, stmtCacheCap)
	}
}
