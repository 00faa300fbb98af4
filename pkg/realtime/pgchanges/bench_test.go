package pgchanges

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BenchmarkCommitToDelivery measures, per committed INSERT into one RLS
// table, the time from the commit's return to delivery to the last of N
// subscribers, and the RLS statements it cost. "distinct" gives every
// subscriber its own claims (N groups, the worst case); "same" gives them
// one (N sockets of one user). Run with
//
//	GOWORK=off go test -run '^$' -bench CommitToDelivery -benchtime 200x ./pkg/realtime/pgchanges/
func BenchmarkCommitToDelivery(b *testing.B) {
	for _, n := range []int{1, 100, 1000} {
		for _, claims := range []string{"distinct", "same"} {
			if n == 1 && claims == "same" {
				continue
			}
			b.Run(fmt.Sprintf("subs=%d/claims=%s", n, claims), func(b *testing.B) {
				benchDelivery(b, n, claims == "distinct")
			})
		}
	}
}

func benchDelivery(b *testing.B, n int, distinct bool) {
	bb := setup(b)
	bb.exec(b, `CREATE TABLE public.feed (id bigint PRIMARY KEY, body text);
		ALTER TABLE public.feed ENABLE ROW LEVEL SECURITY;
		CREATE POLICY feed_members ON public.feed FOR SELECT TO authenticated USING (auth.uid() IS NOT NULL);
		GRANT SELECT ON public.feed TO authenticated;
		ALTER PUBLICATION supabase_realtime ADD TABLE public.feed`)
	s, _ := bb.gateway(b)
	waitLeading(b, s)
	var got atomic.Int64
	done := make(chan struct{}, 1)
	deliver := func([]int, []byte) {
		if got.Add(1) == int64(n) {
			done <- struct{}{}
		}
	}
	for i := range n {
		user := memberA
		if distinct {
			user = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		}
		sub := Subscription{ID: i, Event: "INSERT", Schema: "public", Table: "feed", Role: "authenticated", Claims: claimsOf(user)}
		defer s.Subscribe([]Subscription{sub}, deliver)()
	}
	ctx := context.Background()
	// The test cluster runs with synchronous_commit=off, where WAL reaches
	// the decoder only at the WAL writer's next round (200 ms); a
	// production commit flushes, so the writer here does too.
	writer, err := pgx.Connect(ctx, bb.db.URL)
	if err != nil {
		b.Fatal(err)
	}
	defer writer.Close(ctx)
	if _, err := writer.Exec(ctx, "SET synchronous_commit = on"); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	checks := s.checks.Load()
	b.ResetTimer()
	for i := range b.N {
		got.Store(0)
		if _, err := writer.Exec(ctx, "INSERT INTO public.feed VALUES ($1, 'x')", i); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			b.Fatalf("change %d: %d of %d deliveries (dropped %d)", i, got.Load(), n, s.dropped.Load())
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(s.checks.Load()-checks)/float64(b.N), "statements/change")
}

// BenchmarkRLSCheck compares the database work of one change's RLS
// decision for N distinct claims groups: one statement for all groups
// (this package) against one statement per subscriber (Supabase's
// design, emulated with the same function called once per group).
func BenchmarkRLSCheck(b *testing.B) {
	bb := setup(b)
	bb.exec(b, "INSERT INTO public.notes VALUES (1, $1, 'x')", memberA)
	s := New(Config{Pool: bb.db.Pool, Bus: bb.bus})
	c := &change{Schema: "public", Table: "notes", Kind: "INSERT", RLS: true,
		Columns: []column{{Name: "id", Type: "int8", Key: true}}, New: []value{{Text: "1"}}}
	for _, n := range []int{1, 100, 1000} {
		groups := make([]group, n)
		for i := range groups {
			groups[i] = group{"authenticated", string(claimsOf(fmt.Sprintf("00000000-0000-4000-8000-%012d", i)))}
		}
		ctx := context.Background()
		b.Run(fmt.Sprintf("groups=%d/one-statement", n), func(b *testing.B) {
			for range b.N {
				s.visible(ctx, c, groups)
			}
		})
		b.Run(fmt.Sprintf("groups=%d/statement-per-subscriber", n), func(b *testing.B) {
			for range b.N {
				for _, g := range groups {
					s.visible(ctx, c, []group{g})
				}
			}
		})
	}
}
