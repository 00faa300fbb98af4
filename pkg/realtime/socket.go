package realtime

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// conn is one socket.
type conn struct {
	s      *Service
	ws     *websocket.Conn
	vsn    string
	apikey string
	id     string
	out    chan Frame
	done   chan struct{}
	once   sync.Once

	// mu guards channels; the reader goroutine, token timers and the bus
	// goroutine meet here.
	mu       sync.Mutex
	channels map[string]*channel // by topic

	joins, events window // the reader's own
}

// serveSocket upgrades GET /realtime/v1/websocket?apikey=…&vsn=…. The
// apikey was checked by the server's middleware (it is read from the query
// string, since browsers cannot set headers on a WebSocket).
func (s *Service) serveSocket(c *echo.Context) error {
	vsn := c.QueryParam("vsn")
	if vsn == "" {
		vsn = VSN1 // Phoenix's default when the client names none
	}
	if vsn != VSN1 && vsn != VSN2 {
		return apierr.New(http.StatusBadRequest, "unsupported_vsn", "Unsupported serializer version %q: use 1.0.0 or 2.0.0", vsn)
	}
	if int(s.conns.Add(1)) > s.cfg.MaxConnections {
		s.conns.Add(-1)
		return apierr.New(http.StatusTooManyRequests, "too_many_connections", "ConnectionRateLimitReached: Too many connected users")
	}
	defer s.conns.Add(-1)
	if s.closed.Err() != nil {
		return apierr.New(http.StatusServiceUnavailable, "shutting_down", "RealtimeRestarting: Realtime is restarting, please standby")
	}
	// The HTTP server's read and write timeouts were set on the connection
	// for the request; a socket lives for hours, so lift them before the
	// hijack keeps the connection.
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	ws, err := websocket.Accept(c.Response(), c.Request(), &websocket.AcceptOptions{
		// Clients authenticate with the apikey and JWTs they send, never
		// with cookies, so a page on another origin gains nothing it could
		// not do with those keys itself; Supabase accepts any origin too.
		InsecureSkipVerify: true,
		// Per-message deflate costs tens of KB per socket; realtime
		// messages are small.
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		return nil // Accept has answered the handshake
	}
	ws.SetReadLimit(int64(s.cfg.MaxMessageBytes))
	cn := &conn{s: s, ws: ws, vsn: vsn, apikey: apikeyOf(c), id: newRef(), out: make(chan Frame, s.cfg.SendQueue),
		done: make(chan struct{}), channels: map[string]*channel{}}
	s.wg.Add(1)
	defer s.wg.Done()
	ctx, cancel := context.WithCancel(context.WithoutCancel(c.Request().Context()))
	defer cancel()
	stop := context.AfterFunc(s.closed, func() { cn.close(websocket.StatusGoingAway, "server shutting down") })
	defer stop()
	written := make(chan struct{})
	go func() {
		defer close(written)
		cn.writeLoop()
	}()
	cn.readLoop(ctx)
	cn.close(websocket.StatusNormalClosure, "")
	cn.leaveAll(ctx)
	// A write cut short by a cancelled context would drop the connection
	// under the close handshake; let the writer finish its frame.
	<-written
	return nil
}

// apikeyOf is the key the socket was opened with: the query parameter, or
// the header a server-side client may send; the opaque-key gate has already
// swapped sb_ keys for the legacy JWTs.
func apikeyOf(c *echo.Context) string {
	if k := c.Request().Header.Get("apikey"); k != "" {
		return k
	}
	return c.QueryParam("apikey")
}

func (c *conn) close(code websocket.StatusCode, reason string) {
	c.once.Do(func() {
		close(c.done)
		go func() { _ = c.ws.Close(code, reason) }()
	})
}

// send queues f; a client too slow to keep its queue from filling is
// disconnected rather than buffered without bound.
func (c *conn) send(f Frame) {
	select {
	case <-c.done:
	case c.out <- f:
	default:
		c.s.log.Warn("realtime: socket too slow; disconnecting", "queue", cap(c.out))
		c.close(websocket.StatusPolicyViolation, "send queue full")
	}
}

func (c *conn) push(m Message) {
	if f, ok := Encode(c.vsn, m); ok {
		c.send(f)
	}
}

func (c *conn) writeLoop() {
	for {
		select {
		case <-c.done:
			return
		case f := <-c.out:
			typ := websocket.MessageText
			if f.Binary {
				typ = websocket.MessageBinary
			}
			wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := c.ws.Write(wctx, typ, f.Data)
			cancel()
			if err != nil {
				c.close(websocket.StatusGoingAway, "write failed")
				return
			}
		}
	}
}

// readLoop handles the client's messages in order until the socket closes
// or stays silent past the idle timeout.
func (c *conn) readLoop(ctx context.Context) {
	for {
		rctx, cancel := context.WithTimeout(ctx, c.s.cfg.IdleTimeout)
		typ, data, err := c.ws.Read(rctx)
		cancel()
		if err != nil {
			return
		}
		if !c.events.allow(c.s.cfg.MaxEventsPerSecond, time.Now()) {
			c.close(websocket.StatusPolicyViolation, "Too many messages per second")
			return
		}
		m, err := Decode(c.vsn, typ == websocket.MessageBinary, data)
		if err != nil {
			// Phoenix drops what it cannot decode; so do we, and say why
			// in the log only.
			c.s.log.Debug("realtime: undecodable frame dropped", "err", err)
			continue
		}
		c.handle(ctx, m)
	}
}

func (c *conn) handle(ctx context.Context, m Message) {
	switch {
	case m.Topic == "phoenix" && m.Event == "heartbeat":
		c.reply(m, "ok", json.RawMessage("{}"))
	case m.Event == "phx_join":
		c.join(ctx, m)
		return
	}
	if m.Topic == "phoenix" {
		return
	}
	ch := c.channel(m.Topic)
	if ch == nil {
		if m.Event != "phx_leave" {
			c.reply(m, "error", json.RawMessage(`{"reason":"unmatched topic"}`))
		}
		return
	}
	switch m.Event {
	case "phx_leave":
		// Forgotten before the answer, so that nothing of the channel
		// follows it (a client that saw the answer may rejoin at once);
		// then phx_close under the join's refs, as Phoenix, and so
		// Supabase's server, closes a channel it was asked to leave.
		gone := c.remove(ctx, ch)
		c.reply(m, "ok", json.RawMessage("{}"))
		if gone {
			c.push(closeMessage(ch))
		}
	case "access_token":
		c.accessToken(ctx, ch, m)
	case "broadcast":
		c.broadcast(ctx, ch, m)
	case "presence":
		c.presenceEvent(ctx, ch, m)
	}
}

func (c *conn) channel(topic string) *channel {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.channels[topic]
}

// reply answers a push: phx_reply with its refs and {status, response}.
func (c *conn) reply(m Message, status string, response json.RawMessage) {
	p, _ := json.Marshal(struct {
		Status   string          `json:"status"`
		Response json.RawMessage `json:"response"`
	}{status, response})
	c.push(Message{JoinRef: m.JoinRef, Ref: m.Ref, Topic: m.Topic, Event: "phx_reply", Payload: p})
}

func (c *conn) replyError(m Message, reason string) {
	r, _ := json.Marshal(map[string]string{"reason": reason})
	c.reply(m, "error", r)
}

// leaveAll drops every channel when the socket ends.
func (c *conn) leaveAll(ctx context.Context) {
	c.mu.Lock()
	chs := make([]*channel, 0, len(c.channels))
	for _, ch := range c.channels {
		chs = append(chs, ch)
	}
	c.mu.Unlock()
	for _, ch := range chs {
		c.remove(ctx, ch)
	}
}
