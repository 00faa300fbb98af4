package bench

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/labelbase/labelbase/pkg/db"
)

// textOID is PostgreSQL's text type: the floors bind every parameter as
// text, as the gateway does.
const textOID = 25

// floorPool is the floor's pool: role and claims set once per connection,
// as a hand-written service would, so each request is one prepared
// statement and one round trip.
func floorPool(ctx context.Context, url string, size int, member bool, user string) (*pgxpool.Pool, error) {
	role, claims := "anon", `{"role":"anon"}`
	if member {
		role, claims = "authenticated", fmt.Sprintf(`{"sub":%q,"role":"authenticated","aud":"authenticated"}`, user)
	}
	return sizedPool(ctx, url, size, func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SELECT set_config('role', $1, false), set_config('request.jwt.claims', $2, false)", role, claims)
		return err
	})
}

// sizedPool is a pool of size connections, as every side gets the same
// number; afterConnect, when not nil, prepares each new connection.
func sizedPool(ctx context.Context, url string, size int, afterConnect func(context.Context, *pgx.Conn) error) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(size)
	cfg.AfterConnect = afterConnect
	return pgxpool.NewWithConfig(ctx, cfg)
}

// prepareOnce prepares sql with n text parameters the first time this
// connection sees it and returns its statement name; the names live in the
// connection's custom data under key, numbered after prefix.
func prepareOnce(ctx context.Context, pc *pgconn.PgConn, key, prefix, sql string, n int) (string, error) {
	names, _ := pc.CustomData()[key].(map[string]string)
	if names == nil {
		names = map[string]string{}
		pc.CustomData()[key] = names
	}
	if name, ok := names[sql]; ok {
		return name, nil
	}
	name := fmt.Sprintf("%s%d", prefix, len(names)+1)
	oids := make([]uint32, n)
	for i := range oids {
		oids[i] = textOID
	}
	if _, err := pc.Prepare(ctx, name, sql, oids); err != nil {
		return "", err
	}
	names[sql] = name
	return name, nil
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
	name, err := prepareOnce(ctx, pc, "bench.stmts", "floor", sql, len(args))
	if err != nil {
		return nil, err
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
	setupName, err := prepareOnce(ctx, pc, "bench.setup", "setup", setupSQL, len(setupArgs))
	if err != nil {
		return nil, err
	}
	name, err := prepareOnce(ctx, pc, "bench.setup", "setup", sql, len(args))
	if err != nil {
		return nil, err
	}
	pl := pc.StartPipeline(ctx)
	pl.SendQueryPrepared(setupName, setupArgs, nil, nil)
	pl.SendQueryPrepared(name, args, nil, nil)
	rows, err := readPipeline(pl)
	if err != nil {
		pl.Close()
		return nil, err
	}
	if err := pl.Close(); err != nil {
		return nil, err
	}
	return bodyOf(rows)
}

// readPipeline syncs a pipeline of two prepared statements and returns the
// second one's rows; the caller closes the pipeline.
func readPipeline(pl *pgconn.Pipeline) ([][][]byte, error) {
	if err := pl.Sync(); err != nil {
		return nil, err
	}
	var last [][][]byte
	for i := 0; i < 2; i++ {
		out, err := pl.GetResults()
		if err != nil {
			return nil, err
		}
		rr, ok := out.(*pgconn.ResultReader)
		if !ok {
			return nil, fmt.Errorf("setup floor: unexpected %T", out)
		}
		res := rr.Read()
		if res.Err != nil {
			return nil, res.Err
		}
		last = res.Rows
	}
	// The Sync's own result.
	if _, err := pl.GetResults(); err != nil {
		return nil, err
	}
	return last, nil
}
