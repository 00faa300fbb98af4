// Package db opens the gateway's connection pools and runs work as a
// database role with a caller's JWT claims.
package db

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Pools are the pools a gateway holds.
type Pools struct {
	// Owner connects as DATABASE_URL's user: migrations, the auth store, the
	// ingest worker. It never serves a client's query.
	Owner *pgxpool.Pool
	// REST connects with no privileges of its own (as authenticator) and
	// switches role per transaction. A query that skipped the switch can
	// read nothing: the pool fails closed.
	REST *pgxpool.Pool
	// Session reaches the primary without a pooler, for what needs a
	// session: the crawler's advisory lock. It is Owner when DATABASE_URL
	// is not a pooler.
	Session *pgxpool.Pool
	// Replicas are REST pools on read replicas (Router picks one).
	Replicas []*Replica

	opts Options
}

// Options say how to open the pools.
type Options struct {
	OwnerURL string
	// RESTURL logs in as authenticator; empty: OwnerURL, dropped to
	// authenticator for the session (direct connections only).
	RESTURL string
	Size    int
	// Exec sends every statement unnamed (pgx's QueryExecModeExec) instead
	// of caching prepared statements: what pgx documents for poolers that
	// cannot keep prepared statements (DB_PREPARED_STATEMENTS=false).
	Exec bool
	// DirectURL, when set, makes OwnerURL and RESTURL poolers: sessions
	// (LISTEN, locks) use DirectURL instead.
	DirectURL string
	// ReplicaURLs are read replicas, each connected directly.
	ReplicaURLs []string
}

// Open connects the owner and REST pools straight to one database, with
// prepared statements cached (the default configuration).
func Open(ctx context.Context, ownerURL, restURL string, size int) (*Pools, error) {
	return OpenWith(ctx, Options{OwnerURL: ownerURL, RESTURL: restURL, Size: size})
}

// OpenWith connects every pool o names. Replicas are not reached here: one
// that is down at start is simply not used until its health check passes.
func OpenWith(ctx context.Context, o Options) (_ *Pools, err error) {
	p := &Pools{opts: o}
	defer func() {
		if err != nil {
			p.Close()
		}
	}()
	if p.Owner, err = newPool(ctx, o.OwnerURL, o.Size, o.Exec, nil); err != nil {
		return nil, fmt.Errorf("db: owner pool: %w", err)
	}
	restURL, dropTo := o.RESTURL, (func(context.Context, *pgx.Conn) error)(nil)
	if restURL == "" {
		if o.DirectURL != "" {
			return nil, errors.New("db: behind a pooler the REST pool needs a login of its own (REST_DATABASE_URL as authenticator)")
		}
		restURL, dropTo = o.OwnerURL, dropToAuthenticator
	}
	if p.REST, err = newPool(ctx, restURL, o.Size, o.Exec, dropTo); err != nil {
		return nil, fmt.Errorf("db: REST pool: %w", err)
	}
	if err := checkAuthenticator(ctx, p.REST); err != nil {
		return nil, fmt.Errorf("db: REST pool: %w (check REST_DATABASE_URL)", err)
	}
	p.Session = p.Owner
	if o.DirectURL != "" {
		// Two sessions: the crawler's lock and one spare. Prepared
		// statements are fine on a direct connection.
		if p.Session, err = newPool(ctx, o.DirectURL, 2, false, nil); err != nil {
			return nil, fmt.Errorf("db: direct connection (DATABASE_DIRECT_URL): %w", err)
		}
	}
	for _, u := range o.ReplicaURLs {
		r, err := newReplica(u, o.Size, o.Exec)
		if err != nil {
			return nil, err
		}
		p.Replicas = append(p.Replicas, r)
	}
	return p, nil
}

// ListenConfig is the connection LISTEN runs on: the direct URL behind a
// pooler, else the REST login.
func (p *Pools) ListenConfig() (*pgx.ConnConfig, error) {
	if p.opts.DirectURL == "" {
		return p.REST.Config().ConnConfig.Copy(), nil
	}
	return pgx.ParseConfig(p.opts.DirectURL)
}

// Pooled reports whether DATABASE_URL is a transaction pooler.
func (p *Pools) Pooled() bool { return p.opts.DirectURL != "" }

// Close closes every pool.
func (p *Pools) Close() {
	for _, pool := range []*pgxpool.Pool{p.Owner, p.REST} {
		if pool != nil {
			pool.Close()
		}
	}
	if p.Session != nil && p.Session != p.Owner {
		p.Session.Close()
	}
	for _, r := range p.Replicas {
		r.pool.Close()
	}
}

func dropToAuthenticator(ctx context.Context, c *pgx.Conn) error {
	_, err := c.Exec(ctx, "SET SESSION ROLE authenticator")
	return err
}

func checkAuthenticator(ctx context.Context, pool *pgxpool.Pool) error {
	var who string
	if err := pool.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil {
		return err
	}
	if who != "authenticator" {
		return fmt.Errorf("REST connections must run as authenticator, not %q", who)
	}
	return nil
}

func poolConfig(u string, size int, exec bool, afterConnect func(context.Context, *pgx.Conn) error) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(u)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	cfg.ConnConfig.RuntimeParams["application_name"] = "labelbase"
	if exec {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeExec
		next := afterConnect
		afterConnect = func(ctx context.Context, c *pgx.Conn) error {
			execTypes(c)
			if next != nil {
				return next(ctx, c)
			}
			return nil
		}
	}
	cfg.AfterConnect = afterConnect
	return cfg, nil
}

// execTypes prepares a connection for QueryExecModeExec, where the server
// does not describe a statement's parameters first: pgx must pick each
// parameter's type from its Go type alone, and knows none for a map or a
// [16]byte. Maps (JSON metadata, claims) go to jsonb parameters in this
// code base, and [16]byte values are UUIDs (realtime's message ids, which
// a private channel's authorization sends back as a uuid[]).
func execTypes(c *pgx.Conn) {
	c.TypeMap().RegisterDefaultPgType(map[string]any{}, "jsonb")
	c.TypeMap().RegisterDefaultPgType(map[string]string{}, "jsonb")
	c.TypeMap().RegisterDefaultPgType([16]byte{}, "uuid")
	c.TypeMap().RegisterDefaultPgType([][16]byte{}, "_uuid")
}

// OpenPool is one pool of size on u, as the gateway's own pools are made:
// in exec mode (DB_PREPARED_STATEMENTS=false) when exec is set. It pings u
// before returning.
func OpenPool(ctx context.Context, u string, size int, exec bool) (*pgxpool.Pool, error) {
	return newPool(ctx, u, size, exec, nil)
}

func newPool(ctx context.Context, u string, size int, exec bool, afterConnect func(context.Context, *pgx.Conn) error) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(u, size, exec, afterConnect)
	if err != nil {
		return nil, err
	}
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

// loginIs reports whether URL u logs in as user.
func loginIs(u, user string) bool {
	parsed, err := url.Parse(u)
	if err == nil && parsed.User != nil {
		return parsed.User.Username() == user
	}
	cfg, err := pgx.ParseConfig(u)
	return err == nil && cfg.User == user
}

// replicaConnectTimeout bounds a connection attempt to a replica whose URL
// sets none: a host that went dark must not hold a read for long before
// it falls back to the primary.
const replicaConnectTimeout = 2 * time.Second
