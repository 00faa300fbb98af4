package db

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Replica is a read replica: a REST pool on it, and what its last health
// check found.
type Replica struct {
	// Name is host:port, for logs.
	Name string
	pool *pgxpool.Pool
	// probe is the health check's own connection config: checks never
	// wait behind requests for a pooled connection.
	probe *pgx.ConnConfig

	mu    sync.Mutex
	conn  *pgx.Conn // the health check's connection; nil until connected
	state atomic.Pointer[ReplicaState]
}

// ReplicaState is what a health check found.
type ReplicaState struct {
	Healthy bool
	// Replayed is the replica's last replayed WAL position.
	Replayed LSN
	// LagBytes is how far Replayed was behind the primary.
	LagBytes int64
	// Why says what made the replica unhealthy ("" when healthy).
	Why string
	At  time.Time
}

// Pool is the replica's REST pool.
func (r *Replica) Pool() *pgxpool.Pool { return r.pool }

// State is the replica's last known state.
func (r *Replica) State() ReplicaState {
	if s := r.state.Load(); s != nil {
		return *s
	}
	return ReplicaState{Why: "not checked yet"}
}

// newReplica builds the replica's pool without connecting: a replica down
// at start must not stop the gateway. Its connections run as
// authenticator: logged in as such, or dropped to it for the session.
func newReplica(u string, size int, exec bool) (*Replica, error) {
	var after func(context.Context, *pgx.Conn) error
	if !loginIs(u, "authenticator") {
		after = dropToAuthenticator
	}
	cfg, err := poolConfig(u, size, exec, after)
	if err != nil {
		return nil, fmt.Errorf("db: DATABASE_REPLICA_URLS: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = replicaConnectTimeout
	}
	// A replica is never written to: a standby refuses writes anyway, and
	// this keeps a misconfigured URL that names a primary from taking any.
	cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("db: DATABASE_REPLICA_URLS: %w", err)
	}
	name := cfg.ConnConfig.Host
	if cfg.ConnConfig.Port != 0 {
		name = fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port)
	}
	r := &Replica{Name: name, pool: pool, probe: cfg.ConnConfig.Copy()}
	r.state.Store(&ReplicaState{Why: "not checked yet"})
	return r, nil
}

// replicaStateSQL reads what routing needs in one round trip. The
// functions are executable by every role.
const replicaStateSQL = `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text`

// check reads the replica's state against the primary's position. A
// failure closes the check's connection so the next check reconnects.
func (r *Replica) check(ctx context.Context, primary LSN, maxLag int64) ReplicaState {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.conn == nil || r.conn.IsClosed() {
		c, err := pgx.ConnectConfig(ctx, r.probe)
		if err != nil {
			return ReplicaState{Why: "unreachable: " + err.Error(), At: now}
		}
		r.conn = c
	}
	var recovering bool
	var replayed *string
	if err := r.conn.QueryRow(ctx, replicaStateSQL).Scan(&recovering, &replayed); err != nil {
		_ = r.conn.Close(context.Background())
		r.conn = nil
		return ReplicaState{Why: "check failed: " + err.Error(), At: now}
	}
	if !recovering {
		// Promoted (or never a standby): its data may have diverged from
		// the primary's timeline, so it serves no replica reads.
		return ReplicaState{Why: "not in recovery (promoted?)", At: now}
	}
	if replayed == nil {
		return ReplicaState{Why: "has replayed nothing yet", At: now}
	}
	pos, err := ParseLSN(*replayed)
	if err != nil {
		return ReplicaState{Why: err.Error(), At: now}
	}
	st := ReplicaState{Replayed: pos, At: now}
	// With the primary's position unknown (0: it was never reached), the
	// replica's data is as fresh as anything that can be read.
	if primary > pos {
		st.LagBytes = int64(primary - pos)
	}
	if st.LagBytes > maxLag {
		st.Why = fmt.Sprintf("%d bytes behind the primary (REPLICA_MAX_LAG_BYTES=%d)", st.LagBytes, maxLag)
		return st
	}
	st.Healthy = true
	return st
}

func (r *Replica) closeProbe() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conn != nil {
		_ = r.conn.Close(context.Background())
		r.conn = nil
	}
}
