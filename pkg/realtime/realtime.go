// Package realtime serves /realtime/v1 as Supabase Realtime does on the
// wire, for the unmodified realtime-js: the Phoenix socket (serializers
// 1.0.0 and 2.0.0), broadcast, presence, private channels authorised by the
// policies on realtime.messages, broadcast over HTTP and from SQL
// (realtime.send), and postgres_changes through a ChangeSource.
//
// Every gateway on the database is one cluster: broadcasts and presence
// diffs go through the Bus (LISTEN/NOTIFY, pkg/realtime/bus) and each
// gateway delivers them to its own sockets, so a client on gateway A
// receives what a client on gateway B sent. Presence state lives in the
// database (realtime.presences) so a gateway answers presence_state for
// the whole cluster, and a gateway that stops beating has its presences
// swept within REALTIME_PRESENCE_TIMEOUT.
package realtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/token"
)

// Bus is the cross-gateway fan-out (pkg/realtime/bus implements it; it is
// the same interface pgchanges.Bus declares).
type Bus interface {
	Publish(ctx context.Context, channel string, payload []byte) error
	Subscribe(channel string, fn func(payload []byte)) (cancel func())
	// Listening is closed once a subscribed channel is listened to.
	Listening(channel string) <-chan struct{}
}

// busChannel carries broadcasts and presence diffs; realtime.send in SQL
// notifies it too.
const busChannel = "realtime_broadcast"

// Deps is what the service is built from.
type Deps struct {
	Config *config.Config
	// Pool is the owner pool: policy probes (with a transaction-local role
	// switch), presence rows, gateway liveness.
	Pool     *pgxpool.Pool
	Bus      Bus
	Verifier *token.Verifier
	// Changes serves postgres_changes; nil answers such joins with an
	// error.
	Changes ChangeSource
	Log     *slog.Logger
}

// Service is one gateway's realtime endpoint.
type Service struct {
	cfg      config.Realtime
	anonKey  string
	svcKey   string
	pool     *pgxpool.Pool
	bus      Bus
	verifier *token.Verifier
	changes  ChangeSource
	log      *slog.Logger

	gatewayID string
	hub       *hub
	authz     *authzCache
	presence  *presenceStore
	conns     atomic.Int64

	wg sync.WaitGroup
	// closed ends when Close is called; each socket closes itself on it
	// (context.AfterFunc: no goroutine per socket waits for it).
	closed   context.Context
	shutdown context.CancelFunc
}

// New builds the service; Run starts its background work.
func New(d Deps) *Service {
	s := &Service{
		cfg:       d.Config.Realtime,
		anonKey:   d.Config.AnonKey,
		svcKey:    d.Config.ServiceRoleKey,
		pool:      d.Pool,
		bus:       d.Bus,
		verifier:  d.Verifier,
		changes:   d.Changes,
		log:       d.Log,
		gatewayID: newUUID(),
		authz:     newAuthzCache(),
	}
	s.closed, s.shutdown = context.WithCancel(context.Background())
	s.presence = &presenceStore{s: s}
	s.hub = newHub(s.bus, s.onBus)
	return s
}

// Register mounts the routes on g (/realtime/v1, behind the apikey check).
func (s *Service) Register(g *echo.Group) {
	g.GET("/websocket", s.serveSocket)
	g.POST("/api/broadcast", s.broadcastBatch)
	g.POST("/api/broadcast/:topic/events/:event", s.broadcastOne)
}

// Run keeps this gateway's liveness row fresh and sweeps the presences of
// gateways that stopped, until ctx ends; then it withdraws this gateway's
// own presences.
func (s *Service) Run(ctx context.Context) {
	s.presence.run(ctx)
}

// Close disconnects every socket (their presences leave) and stops
// listening to the bus.
func (s *Service) Close() {
	if s.closed.Err() == nil {
		s.shutdown()
		s.hub.close()
	}
	s.wg.Wait()
}

// Connections is the number of open sockets.
func (s *Service) Connections() int { return int(s.conns.Load()) }

func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newRef is a presence ref (phx_ref): unique, short.
func newRef() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// window counts events in the current second; used by one goroutine.
type window struct {
	start time.Time
	n     int
}

func (w *window) allow(limit int, now time.Time) bool {
	if now.Sub(w.start) >= time.Second {
		w.start, w.n = now, 0
	}
	w.n++
	return w.n <= limit
}
