package app_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// TestRealtimeTwoGateways checks the wiring of /realtime/v1 in the
// assembled gateway: the socket upgrades through every middleware (access
// log, metrics, the opaque-key gate, with the publishable key in the query
// string), and an HTTP broadcast on gateway A reaches a socket on gateway
// B through the bus StartBackground runs.
func TestRealtimeTwoGateways(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two gateways")
	}
	t.Parallel()
	db := pgtest.New(t)
	a := startGateway(t, db.URL, nil, false, nil)
	b := startGateway(t, db.URL, nil, false, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(b.srv.URL, "http") + "/realtime/v1/websocket?vsn=1.0.0&apikey=" + b.app.Config.PublishableKey
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatalf("socket on B: %v", err)
	}
	defer ws.CloseNow()
	join := `{"topic":"realtime:wired","event":"phx_join","payload":{"config":{}},"ref":"1","join_ref":"1"}`
	if err := ws.Write(ctx, websocket.MessageText, []byte(join)); err != nil {
		t.Fatal(err)
	}
	if _, reply, err := ws.Read(ctx); err != nil || !strings.Contains(string(reply), `"status":"ok"`) {
		t.Fatalf("join on B: %s %v", reply, err)
	}
	// The bus may still be starting on B; send until one arrives.
	got := make(chan string, 1)
	go func() {
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				return
			}
			var m struct{ Event string }
			if json.Unmarshal(data, &m) == nil && m.Event == "broadcast" {
				got <- string(data)
				return
			}
		}
	}()
	for {
		req, _ := http.NewRequestWithContext(ctx, "POST", a.srv.URL+"/realtime/v1/api/broadcast/wired/events/hello", strings.NewReader(`{"from":"a"}`))
		req.Header.Set("apikey", a.app.Config.AnonKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("HTTP broadcast on A: %d", resp.StatusCode)
		}
		select {
		case m := <-got:
			if !strings.Contains(m, `"payload":{"from":"a"}`) {
				t.Fatalf("broadcast on B: %s", m)
			}
			return
		case <-time.After(300 * time.Millisecond):
		case <-ctx.Done():
			t.Fatal("the broadcast from A never reached B")
		}
	}
}
