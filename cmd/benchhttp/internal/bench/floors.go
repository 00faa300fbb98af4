package bench

// The floors' requests: what each reference side sends PostgreSQL.

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/db"
)

// floorPool is the floor's pool: role and claims set once per connection,
// as a hand-written service would, so each request is one prepared
// statement and one round trip.
func floorPool(ctx context.Context, url string, size int, member bool, user string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	role, claims := "anon", `{"role":"anon"}`
	if member {
		role, claims = "authenticated", fmt.Sprintf(`{"sub":%q,"role":"authenticated","aud":"authenticated"}`, user)
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SELECT set_config('role', $1, false), set_config('request.jwt.claims', $2, false)", role, claims)
		return err
	}
	return pgxpool.NewWithConfig(ctx, cfg)
}

// floorExec runs sql with text arguments as a statement prepared once per
// connection (the same text-typed parameters the gateway binds).
func floorExec(ctx context.Context, pool *pgxpool.Pool, sql string, args [][]byte) ([]byte, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	names, _ := pc.CustomData()["bench.stmts"].(map[string]string)
	if names == nil {
		names = map[string]string{}
		pc.CustomData()["bench.stmts"] = names
	}
	name, ok := names[sql]
	if !ok {
		name = fmt.Sprintf("floor%d", len(names)+1)
		oids := make([]uint32, len(args))
		for i := range oids {
			oids[i] = 25
		}
		if _, err := pc.Prepare(ctx, name, sql, oids); err != nil {
			return nil, err
		}
		names[sql] = name
	}
	res := pc.ExecPrepared(ctx, name, args, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	return bodyOf(res.Rows)
}

// bodyOf is the JSON body of a main statement's one row (its third column).
func bodyOf(rows [][][]byte) ([]byte, error) {
	if len(rows) != 1 {
		return nil, errors.New("floor: want one row")
	}
	if len(rows[0]) < 3 {
		return rows[0][0], nil
	}
	return rows[0][2], nil
}

// fairSetupSQL is all an RLS-enforcing service must send per request:
// the caller's role and claims, transaction-local.
const fairSetupSQL = `SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true)`

// setupExec is the setup floor: the gateway's setup statement and the
// main statement, both prepared once per connection, in one pipeline and
// its implicit transaction, as the gateway sends a read.
func setupExec(ctx context.Context, pool *pgxpool.Pool, setupArgs [][]byte, sql string, args [][]byte) error {
	_, err := pipelineExec(ctx, pool, db.SetupSQL, setupArgs, sql, args)
	return err
}

// fairExec is the fair floor's request: role and claims (nothing else of
// the gateway's setup) and the statement in one pipeline.
func fairExec(ctx context.Context, pool *pgxpool.Pool, c db.Caller, sql string, args [][]byte) ([]byte, error) {
	claims := c.Claims
	if claims == nil {
		claims = []byte(`{"role":"` + c.Role + `"}`)
	}
	return pipelineExec(ctx, pool, fairSetupSQL, [][]byte{[]byte(c.Role), claims}, sql, args)
}

// pipelineExec sends a setup statement and the main statement, both
// prepared once per connection, in one pipeline (one round trip, one
// implicit transaction), and returns the main statement's body.
func pipelineExec(ctx context.Context, pool *pgxpool.Pool, setupSQL string, setupArgs [][]byte, sql string, args [][]byte) ([]byte, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	names, _ := pc.CustomData()["bench.setup"].(map[string]string)
	if names == nil {
		names = map[string]string{}
		pc.CustomData()["bench.setup"] = names
	}
	for _, q := range []struct {
		sql string
		n   int
	}{{setupSQL, len(setupArgs)}, {sql, len(args)}} {
		if _, ok := names[q.sql]; ok {
			continue
		}
		name := fmt.Sprintf("setup%d", len(names)+1)
		oids := make([]uint32, q.n)
		for i := range oids {
			oids[i] = 25
		}
		if _, err := pc.Prepare(ctx, name, q.sql, oids); err != nil {
			return nil, err
		}
		names[q.sql] = name
	}
	pl := pc.StartPipeline(ctx)
	pl.SendQueryPrepared(names[setupSQL], setupArgs, nil, nil)
	pl.SendQueryPrepared(names[sql], args, nil, nil)
	if err := pl.Sync(); err != nil {
		pl.Close()
		return nil, err
	}
	var last [][][]byte
	for i := 0; i < 2; i++ {
		out, err := pl.GetResults()
		if err != nil {
			pl.Close()
			return nil, err
		}
		rr, ok := out.(*pgconn.ResultReader)
		if !ok {
			pl.Close()
			return nil, fmt.Errorf("setup floor: unexpected %T", out)
		}
		res := rr.Read()
		if res.Err != nil {
			pl.Close()
			return nil, res.Err
		}
		last = res.Rows
	}
	if _, err := pl.GetResults(); err != nil {
		pl.Close()
		return nil, err
	}
	if err := pl.Close(); err != nil {
		return nil, err
	}
	return bodyOf(last)
}
