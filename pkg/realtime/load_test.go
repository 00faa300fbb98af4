package realtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestRealtimeLoad is the benchmark of docs/performance.md, not a timed
// test: it runs only with LABELBASE_REALTIME_BENCH=1 and prints what it
// measured. One gateway and its clients share this process (and the
// machine's two cores) with PostgreSQL.
func TestRealtimeLoad(t *testing.T) {
	if os.Getenv("LABELBASE_REALTIME_BENCH") == "" {
		t.Skip("set LABELBASE_REALTIME_BENCH=1 to run the realtime benchmark")
	}
	db := pgtest.New(t)
	g := startGW(t, db, nil, nil, true)
	ctx := context.Background()
	u := "ws" + strings.TrimPrefix(g.srv.URL, "http") + "/realtime/v1/websocket?vsn=2.0.0&apikey=" + g.cfg.AnonKey

	var socks []*websocket.Conn
	open := func(n int) {
		for len(socks) < n {
			ws, _, err := websocket.Dial(ctx, u, nil)
			if err != nil {
				t.Fatalf("socket %d: %v", len(socks), err)
			}
			join, _ := json.Marshal([]any{"1", "1", "realtime:idle", "phx_join", map[string]any{"config": map[string]any{}}})
			if err := ws.Write(ctx, websocket.MessageText, join); err != nil {
				t.Fatal(err)
			}
			if _, _, err := ws.Read(ctx); err != nil { // the join reply
				t.Fatal(err)
			}
			socks = append(socks, ws)
		}
	}
	memNow := func() (uint64, int) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapInuse + m.StackInuse, runtime.NumGoroutine()
	}
	before, gBefore := memNow()
	start := time.Now()
	open(1000)
	took := time.Since(start)
	after, gAfter := memNow()
	fmt.Printf("1000 sockets opened and joined in %s; server and client ends: %.1f KiB and %.1f goroutines per socket; %d sockets held\n",
		took.Round(time.Millisecond), float64(after-before)/1000/1024, float64(gAfter-gBefore)/1000, g.s.Connections())

	for _, n := range []int{1, 100, 1000} {
		topic := fmt.Sprintf("bench-%d", n)
		for _, ws := range socks[:n] {
			join, _ := json.Marshal([]any{"2", "2", "realtime:" + topic, "phx_join", map[string]any{"config": map[string]any{}}})
			if err := ws.Write(ctx, websocket.MessageText, join); err != nil {
				t.Fatal(err)
			}
			if _, _, err := ws.Read(ctx); err != nil {
				t.Fatal(err)
			}
		}
		lat := measure(t, db, socks[:n], topic, 30)
		fmt.Printf("realtime.send commit→delivery, %4d subscribers: p50 %s, p95 %s (%d deliveries)\n",
			n, pct(lat, 50), pct(lat, 95), len(lat))
	}
	for _, ws := range socks {
		_ = ws.CloseNow()
	}
}

// measure sends rounds messages with realtime.send, one transaction each,
// and returns each delivery's time from COMMIT returning to the frame read.
func measure(t *testing.T, db *pgtest.DB, socks []*websocket.Conn, topic string, rounds int) []time.Duration {
	ctx := context.Background()
	var mu sync.Mutex
	sent := map[int]time.Time{}
	var lat []time.Duration
	var wg sync.WaitGroup
	for _, ws := range socks {
		wg.Add(1)
		go func(ws *websocket.Conn) {
			defer wg.Done()
			for got := 0; got < rounds; {
				rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
				typ, data, err := ws.Read(rctx)
				cancel()
				if err != nil {
					return
				}
				now := time.Now()
				// Broadcasts reach 2.0.0 clients as binary frames (kind 4).
				if typ != websocket.MessageBinary {
					continue
				}
				m, err := decodeServerBinary(data)
				if err != nil || m.Topic != "realtime:"+topic {
					continue
				}
				var p struct {
					Payload struct{ Seq int } `json:"payload"`
				}
				_ = json.Unmarshal(m.Payload, &p)
				mu.Lock()
				lat = append(lat, now.Sub(sent[p.Payload.Seq]))
				mu.Unlock()
				got++
			}
		}(ws)
	}
	for i := 0; i < rounds; i++ {
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, `SELECT realtime.send(jsonb_build_object('seq', $1::int), 'tick', $2, false)`, i, topic); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		sent[i] = time.Now()
		mu.Unlock()
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	return lat
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[(len(d)-1)*p/100].Round(10 * time.Microsecond)
}
