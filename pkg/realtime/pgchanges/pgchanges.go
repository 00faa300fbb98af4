// Package pgchanges delivers Realtime's postgres_changes: rows inserted,
// updated and deleted in tables of the publication supabase_realtime, sent
// to the sockets whose subscriptions they match and whose role and claims
// may SELECT them under row-level security.
//
// One gateway at a time (the holder of an advisory lock, as the crawler
// does it) decodes the WAL through logical replication (pgoutput) and
// publishes each committed change, raw, on the Bus; every gateway, the
// leader included, receives it there and decides locally whom it goes to.
// The RLS decision costs one statement per change and gateway, however many
// sockets and claims groups subscribe; Supabase's design reads the table
// once per subscriber per change.
package pgchanges

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Bus is the cross-gateway fan-out (implemented by pkg/realtime/bus, LISTEN/NOTIFY on a direct primary connection).
type Bus interface {
	Publish(ctx context.Context, channel string, payload []byte) error
	Subscribe(channel string, fn func(payload []byte)) (cancel func())
}

// Subscription is one postgres_changes binding of one joined channel.
type Subscription struct {
	ID     int    // the binding id returned to realtime-js in the join reply
	Event  string // "INSERT", "UPDATE", "DELETE" or "*"
	Schema string
	Table  string
	Filter string // realtime-js filter string, e.g. "id=eq.5", "name=in.(a,b)"; "" for none
	Role   string // database role from the token (anon, authenticated, service_role, …)
	Claims []byte // the token's claims JSON, as request.jwt.claims
}

// Deliver is called for each change this subscriber set may see: ids are
// the matching binding ids, data is the JSON object realtime-js expects as
// payload.data of a "postgres_changes" event. It runs on the gateway's one
// dispatch goroutine, so it must hand the frame off, not block on a socket.
type Deliver func(ids []int, data []byte)

// Config is what the service needs from the gateway.
type Config struct {
	Pool        *pgxpool.Pool // owner/superuser pool on the primary (catalog lookups, RLS checks with SET LOCAL ROLE)
	DirectURL   string        // a direct (not pooled) primary connection string for replication
	Publication string        // "supabase_realtime"
	Bus         Bus
	Logger      *slog.Logger
}

// busChannel is the Bus channel raw changes travel on.
const busChannel = "realtime_pgchanges"

// Timings. Variables, not constants, so tests can shorten them.
var (
	// leaderRetry is how often a gateway that is not the leader (or lost
	// its replication connection) tries again; a dead leader's successor
	// takes over within about this long.
	leaderRetry = 2 * time.Second
	// standbyInterval is how often the leader confirms its position to
	// the server (so WAL is recycled) and checks its lock session.
	standbyInterval = 10 * time.Second
	// checkTimeout bounds one RLS check statement.
	checkTimeout = 5 * time.Second
	// readyTTL is how long a wal_level answer is reused: it only changes
	// with a server restart, and joins must not each cost a query.
	readyTTL = 30 * time.Second
)

// queueSize is how many raw changes may wait for dispatch on a gateway
// before new ones are dropped (and logged): the bus callback must never
// block, since broadcast shares it.
const queueSize = 8192

// Service is one gateway's postgres_changes engine.
type Service struct {
	cfg   Config
	log   *slog.Logger
	queue chan []byte
	kick  chan struct{} // a join waits for a leader: try to lead now

	mu    sync.RWMutex
	byRel map[string]map[*subscriberSet]struct{} // "schema.table" or "schema.*"

	readyMu  sync.Mutex
	readyAt  time.Time
	readyErr error

	leading   atomic.Bool  // this gateway streams the WAL now
	slot      atomic.Value // string: the name of this gateway's latest slot
	checks    atomic.Int64 // RLS check statements run (tests, benchmarks)
	dropped   atomic.Int64 // raw changes dropped on a full queue
	delivered atomic.Int64 // Deliver calls
}

// New builds the service; Run starts it.
func New(cfg Config) *Service {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Publication == "" {
		cfg.Publication = "supabase_realtime"
	}
	return &Service{cfg: cfg, log: log.With("component", "pgchanges"),
		queue: make(chan []byte, queueSize), kick: make(chan struct{}, 1), byRel: map[string]map[*subscriberSet]struct{}{}}
}

// Run receives raw changes from the Bus and dispatches them to this
// gateway's subscribers, and competes for the replication leadership. It
// returns when ctx is done.
func (s *Service) Run(ctx context.Context) error {
	cancel := s.cfg.Bus.Subscribe(busChannel, s.enqueue)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.dispatchLoop(ctx)
	}()
	s.leaderLoop(ctx)
	wg.Wait()
	return nil
}

// enqueue is the Bus callback: it never blocks.
func (s *Service) enqueue(payload []byte) {
	select {
	case s.queue <- payload:
	default:
		if s.dropped.Add(1)%1000 == 1 {
			s.log.Warn("postgres_changes queue full; changes dropped", "dropped_total", s.dropped.Load())
		}
	}
}

func (s *Service) dispatchLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case raw := <-s.queue:
			s.dispatchRaw(ctx, raw)
		}
	}
}
