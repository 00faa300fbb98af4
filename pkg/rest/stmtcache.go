package rest

import (
	"container/list"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// stmtCacheCap bounds the statements prepared on one connection. A request
// shape (table, select, filters, order — not their values) is one
// statement; an app has tens of shapes, a generic client a few hundred.
const stmtCacheCap = 256

// stmtCacheKey is where a connection keeps its cache (pgconn's CustomData),
// so it lives and dies with the connection: a reconnect starts empty.
const stmtCacheKey = "labelbase.rest.stmts"

// stmtCache is the statements prepared on one connection, keyed by SQL
// text, least recently used first out.
//
// pgx has a statement cache of its own, but it is internal to pgx and tied
// to Conn.Query, which prepares in a separate round trip and cannot share a
// pipeline with the role switch. Here a statement is prepared inside the
// request's own pipeline the first time its SQL is seen, so even the first
// use costs no extra round trip, and later uses skip parsing and planning.
type stmtCache struct {
	// gen is the schema cache generation the statements were prepared
	// under; after a reload they are all deallocated, because a table's
	// row type may have changed under a `SELECT t.*`.
	gen   uint64
	names map[string]*list.Element // SQL → element holding *stmtEntry
	lru   *list.List
	seq   uint64
	// stale are names to deallocate in the connection's next pipeline.
	stale []string
}

type stmtEntry struct {
	sql, name string
}

// stmtsOf returns pc's cache, reset when it predates schema generation gen.
func stmtsOf(pc *pgconn.PgConn, gen uint64) *stmtCache {
	data := pc.CustomData()
	sc, _ := data[stmtCacheKey].(*stmtCache)
	if sc == nil {
		sc = &stmtCache{gen: gen, names: map[string]*list.Element{}, lru: list.New()}
		data[stmtCacheKey] = sc
	}
	if sc.gen != gen {
		sc.dropAll()
		sc.gen = gen
	}
	return sc
}

// lookup returns the name sql is prepared under, or a fresh name to
// prepare it under (prepared false). A fresh name is only remembered once
// add confirms the server prepared it.
func (sc *stmtCache) lookup(sql string) (name string, prepared bool) {
	if el, ok := sc.names[sql]; ok {
		sc.lru.MoveToFront(el)
		return el.Value.(*stmtEntry).name, true
	}
	sc.seq++
	return "lb" + strconv.FormatUint(sc.seq, 36), false
}

// add records that name is prepared for sql, evicting the least recently
// used statement past the cap.
func (sc *stmtCache) add(sql, name string) {
	if _, ok := sc.names[sql]; ok {
		return
	}
	sc.names[sql] = sc.lru.PushFront(&stmtEntry{sql: sql, name: name})
	for sc.lru.Len() > stmtCacheCap {
		el := sc.lru.Back()
		e := el.Value.(*stmtEntry)
		sc.lru.Remove(el)
		delete(sc.names, e.sql)
		sc.stale = append(sc.stale, e.name)
	}
}

// dropAll forgets every statement; they are deallocated in the next
// pipeline.
func (sc *stmtCache) dropAll() {
	for el := sc.lru.Front(); el != nil; el = el.Next() {
		sc.stale = append(sc.stale, el.Value.(*stmtEntry).name)
	}
	sc.names = map[string]*list.Element{}
	sc.lru.Init()
}

// takeStale returns the names to deallocate and forgets them. Closing a
// statement that does not exist is not an error in PostgreSQL, so a
// pipeline that fails after sending them loses nothing.
func (sc *stmtCache) takeStale() []string {
	s := sc.stale
	sc.stale = nil
	return s
}
