// Package bus fans messages out to every gateway on one database with
// LISTEN/NOTIFY. PostgreSQL delivers a notification after its transaction
// commits, in commit order, to the sessions listening at that moment: the
// bus is at-most-once, and a gateway that was disconnected misses what was
// sent meanwhile. It needs a direct connection to the primary (a
// transaction pooler does not keep LISTEN, a replica cannot NOTIFY).
//
// NOTIFY carries at most 8,000 bytes; larger payloads, and any that are not
// UTF-8 text, are written to the UNLOGGED table realtime.bus_payloads and
// the notification carries "@" and the row's id. Rows older than a minute
// are deleted by whichever gateway gets there first.
package bus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MaxInline is the largest payload sent inside the notification itself;
// PostgreSQL's limit is 8,000 bytes, and the rest is headroom.
const MaxInline = 7500

// Bus is the LISTEN/NOTIFY fan-out. It satisfies pgchanges.Bus and
// realtime.Bus.
type Bus struct {
	pool *pgxpool.Pool
	url  string
	log  *slog.Logger

	mu       sync.Mutex
	handlers map[string]map[int]func([]byte)
	nextID   int
	// listened is what the listening connection has LISTENed to (reset
	// when it reconnects); waiters are closed when their channel joins it.
	listened map[string]bool
	waiters  map[string][]chan struct{}
	wake     chan struct{} // a channel was added: LISTEN to it
	ready    chan struct{} // closed once the first LISTEN round is done
	readyOne sync.Once
}

// New returns a bus that publishes through pool and listens on its own
// connection to url (a direct primary connection string).
func New(pool *pgxpool.Pool, url string, log *slog.Logger) *Bus {
	return &Bus{pool: pool, url: url, log: log, handlers: map[string]map[int]func([]byte){},
		listened: map[string]bool{}, waiters: map[string][]chan struct{}{},
		wake: make(chan struct{}, 1), ready: make(chan struct{})}
}

// Publish sends payload to every subscriber of channel on every gateway,
// this one included.
func (b *Bus) Publish(ctx context.Context, channel string, payload []byte) error {
	if len(payload) <= MaxInline && utf8.Valid(payload) && bytes.IndexByte(payload, 0) < 0 {
		_, err := b.pool.Exec(ctx, "SELECT pg_notify($1, $2)", channel, string(payload))
		if err != nil {
			return fmt.Errorf("bus: notify: %w", err)
		}
		return nil
	}
	_, err := b.pool.Exec(ctx, `WITH r AS (INSERT INTO realtime.bus_payloads (payload) VALUES ($2) RETURNING id)
SELECT pg_notify($1, '@' || id) FROM r`, channel, payload)
	if err != nil {
		return fmt.Errorf("bus: notify large payload: %w", err)
	}
	return nil
}

// Subscribe calls fn with each payload published on channel until cancel
// is called. fn runs on the bus's one listening goroutine: it must not
// block. A channel whose last subscription is cancelled is UNLISTENed at
// the listener's next round (when another channel is added, or within
// 30 s), so a channel that empties and fills again soon is not
// UNLISTENed and LISTENed in between.
func (b *Bus) Subscribe(channel string, fn func(payload []byte)) (cancel func()) {
	b.mu.Lock()
	hs := b.handlers[channel]
	if hs == nil {
		hs = map[int]func([]byte){}
		b.handlers[channel] = hs
	}
	b.nextID++
	id := b.nextID
	hs[id] = fn
	fresh := !b.listened[channel]
	b.mu.Unlock()
	if fresh {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
	return func() {
		b.mu.Lock()
		delete(b.handlers[channel], id)
		b.mu.Unlock()
	}
}

// Listening is closed once the listening connection LISTENs to channel:
// from then on, whatever commits a notification to it is delivered. A
// subscriber that must not miss what it causes next (a realtime join,
// then the insert whose trigger broadcasts) waits for it after Subscribe.
func (b *Bus) Listening(channel string) <-chan struct{} {
	done := make(chan struct{})
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.listened[channel] {
		close(done)
		return done
	}
	b.waiters[channel] = append(b.waiters[channel], done)
	return done
}

// Ready is closed once the bus listens on every channel subscribed before
// Run started (tests wait on it before publishing).
func (b *Bus) Ready() <-chan struct{} { return b.ready }

// Run listens until ctx ends, reconnecting with a backoff when the
// connection is lost.
func (b *Bus) Run(ctx context.Context) error {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := b.listen(ctx)
		if ctx.Err() != nil {
			break
		}
		b.log.Warn("realtime bus: connection lost; reconnecting", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
	return nil //nolint:nilerr // a lost connection is logged and retried above; Run ends only when ctx does
}

func (b *Bus) listen(ctx context.Context) error {
	cfg, err := pgx.ParseConfig(b.url)
	if err != nil {
		return err
	}
	// A wait cut short (a new channel, the sweep's turn) must only end the
	// read, not send the server a cancel request that could land on the
	// next statement.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// A new connection listens to nothing yet.
	b.mu.Lock()
	clear(b.listened)
	b.mu.Unlock()
	lastSweep := time.Time{}
	for {
		if err := b.listenAll(ctx, conn); err != nil {
			return err
		}
		b.readyOne.Do(func() { close(b.ready) })
		if time.Since(lastSweep) > 30*time.Second {
			lastSweep = time.Now()
			if _, err := conn.Exec(ctx, "DELETE FROM realtime.bus_payloads WHERE created_at < now() - interval '1 minute'"); err != nil {
				return err
			}
		}
		// Take notifications until a new channel or the sweep's turn
		// ends the round. One context per round, not per notification:
		// its timer and goroutine were most of the bus's cost under a
		// stream of notifications (one per insert of a table whose
		// trigger broadcasts).
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		go func() {
			select {
			case <-b.wake:
				cancel()
			case <-wctx.Done():
			}
		}()
		err := b.receive(ctx, wctx, conn)
		cancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || wctx.Err() != nil {
			// Woken on purpose; a timed-out wait leaves pgx's
			// connection usable.
			if conn.IsClosed() {
				return err
			}
			continue
		}
		return err
	}
}

// receive dispatches notifications until waiting for one fails, which
// it does when wctx ends.
func (b *Bus) receive(ctx, wctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			return err
		}
		b.dispatch(ctx, conn, n.Channel, n.Payload)
	}
}

// listenAll LISTENs to every channel with a subscriber and UNLISTENs
// every channel without one. A gateway with nobody joined to a realtime
// channel thus receives no notification at all: each one costs it a read
// and PostgreSQL a send, for every insert whose trigger broadcasts.
func (b *Bus) listenAll(ctx context.Context, conn *pgx.Conn) error {
	// Forget empty channels first, in one step with the map a Subscribe
	// reads: one that comes back meanwhile is not listened to, so it is
	// LISTENed again below and its waiters wait for that.
	b.mu.Lock()
	var drop []string
	for ch, hs := range b.handlers {
		if len(hs) == 0 {
			drop = append(drop, ch)
			delete(b.handlers, ch)
			delete(b.listened, ch)
		}
	}
	b.mu.Unlock()
	for _, ch := range drop {
		if _, err := conn.Exec(ctx, "UNLISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
	}
	b.mu.Lock()
	var add []string
	for ch, hs := range b.handlers {
		if len(hs) > 0 && !b.listened[ch] {
			add = append(add, ch)
		}
	}
	b.mu.Unlock()
	for _, ch := range add {
		if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ch}.Sanitize()); err != nil {
			return err
		}
		b.mu.Lock()
		b.listened[ch] = true
		for _, w := range b.waiters[ch] {
			close(w)
		}
		delete(b.waiters, ch)
		b.mu.Unlock()
	}
	return nil
}

func (b *Bus) dispatch(ctx context.Context, conn *pgx.Conn, channel, payload string) {
	data := []byte(payload)
	if len(payload) > 1 && payload[0] == '@' {
		id, err := strconv.ParseInt(payload[1:], 10, 64)
		if err != nil {
			b.log.Warn("realtime bus: bad large-payload reference", "channel", channel)
			return
		}
		if err := conn.QueryRow(ctx, "SELECT payload FROM realtime.bus_payloads WHERE id = $1", id).Scan(&data); err != nil {
			b.log.Warn("realtime bus: large payload gone", "channel", channel, "id", id, "err", err)
			return
		}
	}
	b.mu.Lock()
	fns := make([]func([]byte), 0, len(b.handlers[channel]))
	for _, fn := range b.handlers[channel] {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(data)
	}
}
