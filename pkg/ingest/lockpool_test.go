package ingest

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Behind a transaction pooler the crawler's pool cannot hold a
// session-level lock; Options.LockPool (the direct connection) holds it.
func TestPassLockUsesTheLockPool(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	direct, err := pgxpool.New(ctx, db.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	s := store{pool: db.Pool, lockPool: direct}
	unlock, err := s.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if held, other := direct.Stat().AcquiredConns(), db.Pool.Stat().AcquiredConns(); held != 1 || other != 0 {
		t.Fatalf("lock pool holds %d connections, crawler pool %d; want 1 and 0", held, other)
	}
	if _, err := (store{pool: db.Pool}).lock(ctx); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second pass on the crawler's own pool: %v, want ErrBusy", err)
	}
	unlock()
	if n := direct.Stat().AcquiredConns(); n != 0 {
		t.Fatalf("unlock left %d connections acquired", n)
	}
}
