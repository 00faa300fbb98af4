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

// Budget is the primary's connection budget (docs/scaling.md):
//
//	direct:        gateways × (2 × pool + 1) ≤ max_connections − superuser_reserved_connections
//	behind pooler: gateways × (2 + 1)        ≤ max_connections − superuser_reserved_connections − the pooler's server connections
//
// A gateway holds two pools of DB_POOL_SIZE (owner and REST) and one
// LISTEN session; behind a pooler only the LISTEN session and the
// two-connection direct pool reach the primary, and the pooler's own
// server pool takes the rest.
type Budget struct {
	Gateways, PoolSize int
	Pooled             bool
}

// PerGateway is what one gateway opens on the primary directly.
func (b Budget) PerGateway() int {
	if b.Pooled {
		return 2 + 1
	}
	return 2*b.PoolSize + 1
}

// Check reads the server's limits over pool and refuses a budget that
// does not fit. It returns the connections left over (for a pooler's
// server pool, or for operators' sessions).
func (b Budget) Check(ctx context.Context, pool *pgxpool.Pool) (spare int, err error) {
	var maxConns, reserved string
	if err := pool.QueryRow(ctx, "SELECT current_setting('max_connections'), current_setting('superuser_reserved_connections')").
		Scan(&maxConns, &reserved); err != nil {
		return 0, fmt.Errorf("db: read max_connections: %w", err)
	}
	m, err1 := strconv.Atoi(maxConns)
	r, err2 := strconv.Atoi(reserved)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("db: read max_connections: %w", err)
	}
	need := b.Gateways * b.PerGateway()
	avail := m - r
	if need > avail {
		if b.Pooled {
			return 0, fmt.Errorf("db: connection budget: %d gateways × %d direct connections = %d, but the primary allows %d (max_connections %d − superuser_reserved_connections %d); raise max_connections or lower DB_GATEWAYS",
				b.Gateways, b.PerGateway(), need, avail, m, r)
		}
		return 0, fmt.Errorf("db: connection budget: %d gateways × (2 × DB_POOL_SIZE %d + 1) = %d connections, but the primary allows %d (max_connections %d − superuser_reserved_connections %d); lower DB_POOL_SIZE, raise max_connections or put a pooler in front (DATABASE_DIRECT_URL)",
			b.Gateways, b.PoolSize, need, avail, m, r)
	}
	return avail - need, nil
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
