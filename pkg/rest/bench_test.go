package rest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// End-to-end benchmarks: an httptest request through the real echo stack
// (server.New with this package's routes) to a fresh PostgreSQL database,
// as a signed-in member (docs/performance.md, "Gateway benchmarks").
//
// benchSetup is the tests' setup (same config, pools, demo rows, users)
// plus follows, listens and recent releases so the app's RPCs return rows.

func benchSetup(b *testing.B) *env {
	b.Helper()
	ctx := context.Background()
	e := setup(b)
	scan := func(sql string, args ...any) []int64 {
		rows, err := e.db.Pool.Query(ctx, sql, args...)
		if err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				b.Fatal(err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
		return ids
	}
	// For the app's RPCs: ten releases per label in the last 60 days (the
	// Explore default is 90), A follows every label and has listened to
	// every third release.
	e.rels = append(e.rels, scan(`INSERT INTO public.releases (label_id, title, artist, release_url, release_date, genres)
		SELECT l.id, l.label_name || ' new ' || g, 'Artist ' || g, l.label_url || '/album/new-' || g, current_date - 6 * g, '{jazz,ambient}'
		  FROM public.labels l, generate_series(1, 10) g ORDER BY l.id, g RETURNING id`)...)
	scan(`INSERT INTO public.user_follow_labels (user_id, label_id) SELECT $1, unnest($2::bigint[]) RETURNING id`, e.userA, e.labels)
	scan(`INSERT INTO public.user_listened_releases (user_id, release_id)
		SELECT $1, r FROM unnest($2::bigint[]) WITH ORDINALITY u(r, n) WHERE n % 3 = 0 RETURNING id`, e.userA, e.rels)
	if _, err := e.db.Pool.Exec(ctx, "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	return e
}

// benchReq is one request as supabase-js sends it for a signed-in user.
type benchReq struct {
	method, path, body string
	hdr                []string
	status             int
}

func (e *env) serve(r benchReq) *httptest.ResponseRecorder {
	var req *http.Request
	if r.body != "" {
		req = httptest.NewRequest(r.method, r.path, strings.NewReader(r.body))
		req.Header.Set("Content-Type", "application/json")
	} else {
		req = httptest.NewRequest(r.method, r.path, nil)
	}
	req.Header.Set("apikey", e.cfg.AnonKey)
	req.Header.Set("Authorization", "Bearer "+e.tokA)
	req.Header.Set("Accept", "*/*")
	req.Header.Set("X-Client-Info", "supabase-js-web/2.x")
	for i := 0; i+1 < len(r.hdr); i += 2 {
		req.Header.Set(r.hdr[i], r.hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec
}

// check fails the benchmark unless r gets its expected status; it returns
// the body.
func (e *env) check(b *testing.B, r benchReq) string {
	rec := e.serve(r)
	if rec.Code != r.status {
		b.Fatalf("%s %s: status %d, want %d: %s", r.method, r.path, rec.Code, r.status, rec.Body.String())
	}
	return rec.Body.String()
}

// benchReads are the read requests, each checked once for rows before timing.
func benchReads(e *env) []struct {
	name string
	req  benchReq
} {
	rpc := func(fn, body string) benchReq {
		return benchReq{method: "POST", path: "/rest/v1/rpc/" + fn, body: body, hdr: []string{"Content-Profile", "public"}, status: 200}
	}
	return []struct {
		name string
		req  benchReq
	}{
		{"GET_filter", benchReq{method: "GET", path: "/rest/v1/user_listened_releases?select=release_id&user_id=eq." + e.userA, status: 200}},
		{"GET_embed", benchReq{method: "GET", path: fmt.Sprintf("/rest/v1/releases?select=*%%2Clabels%%28label_name%%2Clabel_url%%29&label_id=eq.%d", e.labels[0]), status: 200}},
		{"RPC_get_latest_releases", rpc("get_latest_releases", fmt.Sprintf(`{"user_id":%q,"label_ids":null,"page_size":9,"page":1}`, e.userA))},
		{"RPC_get_random_releases", rpc("get_random_releases", fmt.Sprintf(`{"user_id":%q,"label_ids":null,"exclude_ids":[],"num_releases":9,"genre_filters":null,"time_range_days":90}`, e.userA))},
	}
}

func BenchmarkREST(b *testing.B) {
	e := benchSetup(b)
	for _, tc := range benchReads(e) {
		if body := e.check(b, tc.req); len(body) < 3 || body[0] != '[' || body == "[]" {
			b.Fatalf("%s: want a non-empty array, got %s", tc.name, body)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.check(b, tc.req)
			}
		})
	}
	// The Listened toggle: upsert then delete, as the app sends them.
	rel := e.rels[len(e.rels)-1] // ordinality 49, not listened (n % 3 != 0)
	if n := len(e.rels); n%3 == 0 {
		b.Fatalf("release %d of %d is listened already", n, n)
	}
	ins := benchReq{method: "POST", path: "/rest/v1/user_listened_releases?on_conflict=user_id%2Crelease_id",
		body: fmt.Sprintf(`{"user_id":%q,"release_id":%d}`, e.userA, rel), hdr: []string{"Prefer", "resolution=merge-duplicates"}, status: 201}
	del := benchReq{method: "DELETE", path: fmt.Sprintf("/rest/v1/user_listened_releases?user_id=eq.%s&release_id=eq.%d", e.userA, rel), status: 204}
	b.Run("POST_upsert+DELETE", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			e.check(b, ins)
			e.check(b, del)
		}
	})
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM public.user_listened_releases WHERE release_id = $1", rel).Scan(&n); err != nil || n != 0 {
		b.Fatalf("after the pairs: %d rows, %v", n, err)
	}
}

// BenchmarkRESTParallel runs the filtered GET from GOMAXPROCS goroutines
// (the REST pool has 4 connections).
func BenchmarkRESTParallel(b *testing.B) {
	e := benchSetup(b)
	r := benchReads(e)[0].req
	e.check(b, r)
	b.Run("GET_filter", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if rec := e.serve(r); rec.Code != r.status {
					b.Errorf("status %d: %s", rec.Code, rec.Body.String())
					return
				}
			}
		})
	})
}
