// Package db opens the gateway's connection pools and runs work as a
// database role with a caller's JWT claims.
package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pools are the two pools a gateway holds.
type Pools struct {
	// Owner connects as DATABASE_URL's user: migrations, the auth store, the
	// ingest worker. It never serves a client's query.
	Owner *pgxpool.Pool
	// REST connects with no privileges of its own (as authenticator) and
	// switches role per transaction. A query that skipped the switch can
	// read nothing: the pool fails closed.
	REST *pgxpool.Pool
}

// Open connects both pools. When restURL is empty the REST pool logs in with
// ownerURL and drops to the authenticator role for the whole session.
func Open(ctx context.Context, ownerURL, restURL string, size int) (*Pools, error) {
	owner, err := newPool(ctx, ownerURL, size, nil)
	if err != nil {
		return nil, fmt.Errorf("db: owner pool: %w", err)
	}
	var dropTo func(context.Context, *pgx.Conn) error
	if restURL == "" {
		restURL = ownerURL
		dropTo = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET SESSION ROLE authenticator")
			return err
		}
	}
	rest, err := newPool(ctx, restURL, size, dropTo)
	if err != nil {
		owner.Close()
		return nil, fmt.Errorf("db: REST pool: %w", err)
	}
	var who string
	if err := rest.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil {
		owner.Close()
		rest.Close()
		return nil, fmt.Errorf("db: REST pool: %w", err)
	}
	if who != "authenticator" {
		owner.Close()
		rest.Close()
		return nil, fmt.Errorf("db: REST connections must run as authenticator, not %q (check REST_DATABASE_URL)", who)
	}
	return &Pools{Owner: owner, REST: rest}, nil
}

// Close closes both pools.
func (p *Pools) Close() {
	p.Owner.Close()
	p.REST.Close()
}

func newPool(ctx context.Context, url string, size int, afterConnect func(context.Context, *pgx.Conn) error) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	cfg.ConnConfig.RuntimeParams["application_name"] = "labelbase"
	cfg.AfterConnect = afterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return pool, nil
}
