package db

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Budget is the connection budget (docs/scaling.md):
//
//	direct:        gateways × (2 × pool + 1 + sessions) ≤ max_connections − superuser_reserved_connections
//	behind pooler: gateways × (2 + 1 + sessions)        ≤ max_connections − superuser_reserved_connections − the pooler's server connections
//	each replica:  gateways × (pool + 1)                ≤ that replica's max_connections − superuser_reserved_connections
//
// A gateway holds two pools of DB_POOL_SIZE (owner and REST) and one
// LISTEN session; behind a pooler only the LISTEN session and the
// two-connection direct pool reach the primary, and the pooler's own
// server pool takes the rest. Sessions are the other connections a gateway
// opens on the primary by itself (Realtime's bus and its leader lock). On
// a replica a gateway holds its REST pool and the health check's
// connection.
type Budget struct {
	Gateways, PoolSize int
	Pooled             bool
	// Sessions are the connections per gateway outside the pools.
	Sessions int
}

// PerGateway is what one gateway opens on the primary directly.
func (b Budget) PerGateway() int {
	if b.Pooled {
		return 2 + 1 + b.Sessions
	}
	return 2*b.PoolSize + 1 + b.Sessions
}

// PerReplica is what one gateway opens on each replica.
func (b Budget) PerReplica() int { return b.PoolSize + 1 }

// limits reads max_connections less the superuser's reserved slots.
func limits(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (usable, maxConns, reserved int, err error) {
	var m, r string
	if err := q.QueryRow(ctx, "SELECT current_setting('max_connections'), current_setting('superuser_reserved_connections')").
		Scan(&m, &r); err != nil {
		return 0, 0, 0, fmt.Errorf("db: read max_connections: %w", err)
	}
	mi, err1 := strconv.Atoi(m)
	ri, err2 := strconv.Atoi(r)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, 0, fmt.Errorf("db: read max_connections: %w", err)
	}
	return mi - ri, mi, ri, nil
}

// Check reads the server's limits over pool and refuses a budget that
// does not fit. It returns the connections left over (for a pooler's
// server pool, or for operators' sessions).
func (b Budget) Check(ctx context.Context, pool *pgxpool.Pool) (spare int, err error) {
	avail, m, r, err := limits(ctx, pool)
	if err != nil {
		return 0, err
	}
	need := b.Gateways * b.PerGateway()
	if need > avail {
		if b.Pooled {
			return 0, fmt.Errorf("db: connection budget: %d gateways × %d direct connections (LISTEN, the two-connection direct pool and %d other sessions) = %d, but the primary allows %d (max_connections %d − superuser_reserved_connections %d); raise max_connections or lower DB_GATEWAYS",
				b.Gateways, b.PerGateway(), b.Sessions, need, avail, m, r)
		}
		return 0, fmt.Errorf("db: connection budget: %d gateways × (2 × DB_POOL_SIZE %d + 1 + %d sessions) = %d connections, but the primary allows %d (max_connections %d − superuser_reserved_connections %d); lower DB_POOL_SIZE, raise max_connections or put a pooler in front (DATABASE_DIRECT_URL)",
			b.Gateways, b.PoolSize, b.Sessions, need, avail, m, r)
	}
	return avail - need, nil
}

// replicaBudgetWait bounds how long start-up waits for a replica to
// answer the budget check: one that does not is checked by nobody (it may
// be down; routing skips it until it answers).
const replicaBudgetWait = 2 * time.Second

// CheckReplica refuses a budget that does not fit on r: every gateway's
// REST pool on it and its health check's connection. A replica that
// cannot be reached now is not checked, and reached says so.
func (b Budget) CheckReplica(ctx context.Context, r *Replica) (reached bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, replicaBudgetWait)
	defer cancel()
	c, err := pgx.ConnectConfig(ctx, r.probe)
	if err != nil {
		return false, nil //nolint:nilerr // a replica down at start is allowed (docs/scaling.md)
	}
	defer c.Close(context.WithoutCancel(ctx))
	avail, m, res, err := limits(ctx, c)
	if err != nil {
		return false, nil //nolint:nilerr // as above: it went away while answering
	}
	if need := b.Gateways * b.PerReplica(); need > avail {
		return true, fmt.Errorf("db: connection budget on replica %s: %d gateways × (DB_POOL_SIZE %d + 1 health check) = %d connections, but it allows %d (max_connections %d − superuser_reserved_connections %d); lower DB_POOL_SIZE or raise the replica's max_connections",
			r.Name, b.Gateways, b.PoolSize, need, avail, m, res)
	}
	return true, nil
}

// CheckListen proves that a notification sent on one connection reaches a
// LISTEN on another made from cfg. Through a transaction pooler it does
// not (the listening server connection goes back to the pool), and the
// schema cache would silently stop reloading; so start-up refuses it.
func CheckListen(ctx context.Context, cfg *pgx.ConnConfig) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	listener, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return fmt.Errorf("db: LISTEN check: %w", err)
	}
	defer listener.Close(context.WithoutCancel(ctx))
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	channel := "labelbase_probe_" + hex.EncodeToString(b)
	if _, err := listener.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return fmt.Errorf("db: LISTEN check: %w", err)
	}
	sender, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return fmt.Errorf("db: LISTEN check: %w", err)
	}
	defer sender.Close(context.WithoutCancel(ctx))
	if _, err := sender.Exec(ctx, "SELECT pg_notify($1, 'probe')", channel); err != nil {
		return fmt.Errorf("db: LISTEN check: %w", err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	defer wcancel()
	if _, err := listener.WaitForNotification(wctx); err != nil {
		if ctx.Err() == nil && wctx.Err() != nil {
			return errors.New("db: LISTEN does not receive notifications on this connection; it is probably a transaction pooler (PgBouncer, Supavisor): set DATABASE_DIRECT_URL to a direct connection to the primary")
		}
		return fmt.Errorf("db: LISTEN check: %w", err)
	}
	return nil
}
