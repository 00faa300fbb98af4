package realtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/realtime/bus"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSecret = "realtime-test-secret-realtime-test-secret-0123"

// gw is one gateway under test: the real middleware, bus and service.
type gw struct {
	s    *Service
	srv  *httptest.Server
	cfg  *config.Config
	stop context.CancelFunc
}

func loadConfig(t *testing.T, dbURL string, env map[string]string) *config.Config {
	t.Helper()
	vars := map[string]string{"DATABASE_URL": dbURL, "JWT_SECRET": testSecret,
		"REALTIME_PRESENCE_HEARTBEAT": "200ms", "REALTIME_PRESENCE_TIMEOUT": "1s"}
	for k, v := range env {
		vars[k] = v
	}
	cfg := configtest.New(t, vars)
	return cfg
}

// startGW starts a gateway; beat=false leaves the liveness loop to the
// test (a gateway that will "die").
func startGW(t *testing.T, db *pgtest.DB, env map[string]string, changes ChangeSource, beat bool) *gw {
	t.Helper()
	cfg := loadConfig(t, db.URL, env)
	log := slog.New(slog.DiscardHandler)
	b := bus.New(db.Pool, db.URL, log)
	s := New(Deps{Config: cfg, Pool: db.Pool, Bus: b, Verifier: token.NewVerifier(testSecret, "", time.Now), Changes: changes, Log: log})
	ctx, stop := context.WithCancel(context.Background())
	go func() { _ = b.Run(ctx) }()
	if beat {
		go s.Run(ctx)
	} else {
		go func() {
			for ctx.Err() == nil {
				_ = s.presence.beat(ctx)
				time.Sleep(cfg.Realtime.PresenceHeartbeat)
			}
		}()
	}
	select {
	case <-b.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("bus never listened")
	}
	h := server.New(server.Deps{Config: cfg, Log: log, Realtime: s.Register})
	srv := httptest.NewServer(h)
	g := &gw{s: s, srv: srv, cfg: cfg, stop: stop}
	t.Cleanup(func() { srv.Close(); stop(); s.Close() })
	return g
}

// signClaims signs claims with the test secret.
func signClaims(t *testing.T, claims map[string]any) string {
	t.Helper()
	tok, err := token.Sign(testSecret, jwt.MapClaims(claims))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// userToken signs a user JWT with the test secret.
func userToken(t *testing.T, sub, role string, exp time.Duration) string {
	t.Helper()
	claims := jwt.MapClaims{"sub": sub, "role": role, "iat": time.Now().Unix()}
	if exp != 0 {
		claims["exp"] = time.Now().Add(exp).Unix()
	}
	tok, err := token.Sign(testSecret, claims)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// client is a test socket speaking vsn.
type client struct {
	t   *testing.T
	ws  *websocket.Conn
	vsn string
	ref int
	// in receives what the reader goroutine read: a Read that times out
	// closes a coder/websocket connection, so waits happen here instead.
	in  chan got
	err chan error
	// backlog holds what was read while waiting for something else.
	backlog []got
}

func dial(t *testing.T, g *gw, vsn string) *client {
	t.Helper()
	u := "ws" + strings.TrimPrefix(g.srv.URL, "http") + "/realtime/v1/websocket?apikey=" + g.cfg.AnonKey + "&vsn=" + vsn
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	ws.SetReadLimit(4 << 20)
	t.Cleanup(func() { _ = ws.CloseNow() })
	c := &client{t: t, ws: ws, vsn: vsn, in: make(chan got, 4096), err: make(chan error, 1)}
	go c.readLoop()
	return c
}

func (c *client) readLoop() {
	for {
		typ, data, err := c.ws.Read(context.Background())
		if err != nil {
			c.err <- err
			return
		}
		var g got
		if typ == websocket.MessageBinary {
			g.Message, err = decodeServerBinary(data)
			g.binary = true
		} else if c.vsn == VSN1 {
			g.Message, err = decodeObject(data)
		} else {
			g.Message, err = decodeArray(data)
		}
		if err != nil {
			c.err <- err
			return
		}
		c.in <- g
	}
}

// push sends a message and returns its ref.
func (c *client) push(joinRef, topic, event string, payload any) string {
	c.t.Helper()
	c.ref++
	ref := strconv.Itoa(c.ref)
	p, _ := json.Marshal(payload)
	var jr *string
	if joinRef != "" {
		jr = &joinRef
	}
	f, _ := Encode(c.vsn, Message{JoinRef: jr, Ref: &ref, Topic: topic, Event: event, Payload: p})
	c.write(f)
	return ref
}

func (c *client) write(f Frame) {
	c.t.Helper()
	typ := websocket.MessageText
	if f.Binary {
		typ = websocket.MessageBinary
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.ws.Write(ctx, typ, f.Data); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// got is a received message and how it came.
type got struct {
	Message
	binary bool
}

func (c *client) read(timeout time.Duration) (got, error) {
	select {
	case g := <-c.in:
		return g, nil
	case err := <-c.err:
		c.err <- err
		return got{}, err
	case <-time.After(timeout):
		return got{}, errTimeout
	}
}

var errTimeout = errors.New("timed out")

// decodeServerBinary reads kind 4 as realtime-js does: a JSON payload
// becomes the text form's {type, event, payload}, bytes stay in Bin.
func decodeServerBinary(b []byte) (Message, error) {
	if len(b) < 5 || b[0] != kindUserBroadcast || (b[4] != encodingBinary && b[4] != encodingJSON) {
		return Message{}, fmt.Errorf("not a user broadcast: % x", b[:min(len(b), 8)])
	}
	tl, el, ml := int(b[1]), int(b[2]), int(b[3])
	off := 5
	if off+tl+el+ml > len(b) {
		return Message{}, fmt.Errorf("user broadcast shorter than its header: % x", b)
	}
	topic := string(b[off : off+tl])
	off += tl
	event := string(b[off : off+el])
	off += el + ml
	if b[4] == encodingJSON {
		if !json.Valid(b[off:]) {
			return Message{}, fmt.Errorf("user broadcast with invalid JSON: %q", b[off:])
		}
		p, _ := json.Marshal(map[string]any{"type": "broadcast", "event": event, "payload": json.RawMessage(b[off:])})
		return Message{Topic: topic, Event: "broadcast", Payload: p}, nil
	}
	return Message{Topic: topic, Event: "broadcast", Bin: &BinaryPayload{Event: event, Data: b[off:]}}, nil
}

// expect returns the first message (backlog first) that match accepts,
// failing after timeout; the others stay in the backlog.
func (c *client) expect(what string, timeout time.Duration, match func(got) bool) got {
	c.t.Helper()
	for i, g := range c.backlog {
		if match(g) {
			c.backlog = append(c.backlog[:i:i], c.backlog[i+1:]...)
			return g
		}
	}
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			c.t.Fatalf("%s: nothing matched within %s", what, timeout)
		}
		g, err := c.read(left)
		if err != nil {
			c.t.Fatalf("%s: %v", what, err)
		}
		if match(g) {
			return g
		}
		c.backlog = append(c.backlog, g)
	}
}

// quiet fails if a message matching match is in the backlog or arrives
// within d.
func (c *client) quiet(what string, d time.Duration, match func(got) bool) {
	c.t.Helper()
	deadline := time.Now().Add(d)
	for _, g := range c.backlog {
		if match(g) {
			c.t.Fatalf("%s: got %s %s", what, g.Event, g.Payload)
		}
	}
	for time.Until(deadline) > 0 {
		g, err := c.read(time.Until(deadline))
		if err != nil {
			return
		}
		if match(g) {
			c.t.Fatalf("%s: got %s %s", what, g.Event, g.Payload)
		}
		c.backlog = append(c.backlog, g)
	}
}

// reply waits for the phx_reply to ref and returns status and response.
func (c *client) reply(ref string) (string, json.RawMessage) {
	c.t.Helper()
	g := c.expect("reply to "+ref, 5*time.Second, func(g got) bool { return g.Event == "phx_reply" && g.Ref != nil && *g.Ref == ref })
	var p struct {
		Status   string          `json:"status"`
		Response json.RawMessage `json:"response"`
	}
	_ = json.Unmarshal(g.Payload, &p)
	return p.Status, p.Response
}

// join joins topic with config and returns the join ref after an ok.
func (c *client) join(topic string, payload map[string]any) (string, json.RawMessage) {
	c.t.Helper()
	c.ref++
	ref := strconv.Itoa(c.ref)
	p, _ := json.Marshal(payload)
	f, _ := Encode(c.vsn, Message{JoinRef: &ref, Ref: &ref, Topic: topic, Event: "phx_join", Payload: p})
	c.write(f)
	st, resp := c.reply(ref)
	if st != "ok" {
		c.t.Fatalf("join %s: %s %s", topic, st, resp)
	}
	return ref, resp
}

// joinErr joins and returns the error reason.
func (c *client) joinErr(topic string, payload map[string]any) string {
	c.t.Helper()
	c.ref++
	ref := strconv.Itoa(c.ref)
	p, _ := json.Marshal(payload)
	f, _ := Encode(c.vsn, Message{JoinRef: &ref, Ref: &ref, Topic: topic, Event: "phx_join", Payload: p})
	c.write(f)
	st, resp := c.reply(ref)
	if st != "error" {
		c.t.Fatalf("join %s: want an error, got %s %s", topic, st, resp)
	}
	var r struct {
		Reason string `json:"reason"`
	}
	_ = json.Unmarshal(resp, &r)
	return r.Reason
}

func cfg(broadcast map[string]any, extra map[string]any) map[string]any {
	c := map[string]any{"broadcast": broadcast, "presence": map[string]any{"key": ""}, "postgres_changes": []any{}, "private": false}
	for k, v := range extra {
		c[k] = v
	}
	return map[string]any{"config": c}
}

func isBroadcast(event string) func(got) bool {
	return func(g got) bool {
		if g.Event != "broadcast" {
			return false
		}
		if g.Bin != nil {
			return g.Bin.Event == event
		}
		var p struct {
			Event string `json:"event"`
		}
		_ = json.Unmarshal(g.Payload, &p)
		return p.Event == event
	}
}
