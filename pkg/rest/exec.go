package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/rest/query"
)

// setupSQL switches role and publishes the request to SQL, all
// transaction-local and in one statement, as PostgREST does.
const setupSQL = `SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true),
 set_config('request.method', $3, true), set_config('request.path', $4, true),
 set_config('request.headers', $5, true), set_config('request.cookies', $6, true),
 set_config('statement_timeout', $7, true), set_config('search_path', $8, true)`

// result is the one row every main statement returns.
type result struct {
	total   *int64
	n       int64
	body    []byte
	headers string
	status  string
}

// txSpec is one request's transaction.
type txSpec struct {
	caller   *caller
	readOnly bool
	method   string
	path     string
	headers  []byte
	cookies  []byte
	schema   string
	stmt     *query.Statement
	// decide runs after the main statement; an error rolls back (e.g. a
	// singular response that did not get exactly one row).
	decide func(*result) error
}

const textOID = 25

// acquireTimeout bounds the wait for a pooled connection.
const acquireTimeout = 10 * time.Second

func textParams(args []*string) ([][]byte, []uint32) {
	vals := make([][]byte, len(args))
	oids := make([]uint32, len(args))
	for i, a := range args {
		if a != nil {
			vals[i] = []byte(*a)
		}
		oids[i] = textOID
	}
	return vals, oids
}

// run executes the request in one transaction with two network round
// trips at most: BEGIN, the setup and the main statement are pipelined
// (plus COMMIT for reads, which cannot need a rollback); writes then send
// COMMIT or ROLLBACK once the response is known to be acceptable.
func (a *API) run(ctx context.Context, s *txSpec) (*result, error) {
	if !db.AllowedRoles[s.caller.role] && s.caller.role != a.cfg.DBAnonRole {
		return nil, fmt.Errorf("%w: %q", db.ErrRoleNotAllowed, s.caller.role)
	}
	// Like PostgREST's db-pool-acquisition-timeout: a saturated pool answers
	// 504 PGRST003 instead of queueing requests without bound.
	actx, cancel := context.WithTimeout(ctx, acquireTimeout)
	conn, err := a.pool.Acquire(actx)
	cancel()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, apierr.New(http.StatusGatewayTimeout, "PGRST003", "Timed out acquiring connection from connection pool.").WithCause(err)
		}
		return nil, err
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()

	begin := "BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE"
	if s.readOnly {
		begin = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
	}
	setup := []*string{&s.caller.role, ptr(string(s.caller.claims)), &s.method, &s.path, ptr(string(s.headers)),
		ptr(string(s.cookies)), ptr(strconv.FormatInt(a.cfg.StatementTimeout.Milliseconds(), 10)),
		ptr(searchPath(s.schema))}
	if a.skipRoleSwitch {
		setup[0] = ptr("authenticator")
	}
	sv, so := textParams(setup)
	mv, mo := textParams(s.stmt.Args)

	pl := pc.StartPipeline(ctx)
	pl.SendQueryParams(begin, nil, nil, nil, nil)
	pl.SendQueryParams(setupSQL, sv, so, nil, nil)
	pl.SendQueryParams(s.stmt.SQL, mv, mo, nil, nil)
	commitInPipeline := s.readOnly && s.decide == nil
	if commitInPipeline {
		pl.SendQueryParams("COMMIT", nil, nil, nil, nil)
	}
	if err := pl.Sync(); err != nil {
		pl.Close()
		return nil, err
	}
	var res *result
	var firstErr error
	steps := 3
	if commitInPipeline {
		steps = 4
	}
	for i := 0; i < steps && firstErr == nil; i++ {
		out, err := pl.GetResults()
		if err != nil {
			firstErr = err
			break
		}
		rr, ok := out.(*pgconn.ResultReader)
		if !ok {
			firstErr = fmt.Errorf("rest: unexpected pipeline result %T", out)
			break
		}
		if i == 2 {
			res, err = readResult(rr)
		} else {
			_, err = rr.Close()
		}
		if err != nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		if out, err := pl.GetResults(); err != nil {
			firstErr = err
		} else if _, ok := out.(*pgconn.PipelineSync); !ok {
			firstErr = fmt.Errorf("rest: expected pipeline sync, got %T", out)
		}
	}
	if err := pl.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		a.endTx(ctx, pc, "ROLLBACK")
		return nil, firstErr
	}
	if commitInPipeline {
		return res, nil
	}
	if s.decide != nil {
		if err := s.decide(res); err != nil {
			a.endTx(ctx, pc, "ROLLBACK")
			return nil, err
		}
	}
	if _, err := pc.Exec(ctx, "COMMIT").ReadAll(); err != nil {
		a.endTx(ctx, pc, "ROLLBACK")
		return nil, err
	}
	return res, nil
}

// endTx leaves a failed or refused transaction. If even that fails the
// pool discards the connection on release, since it is not idle.
func (a *API) endTx(ctx context.Context, pc *pgconn.PgConn, sql string) {
	if pc.IsClosed() || pc.TxStatus() == 'I' {
		return
	}
	_, _ = pc.Exec(context.WithoutCancel(ctx), sql).ReadAll()
}

func readResult(rr *pgconn.ResultReader) (*result, error) {
	var res *result
	for rr.NextRow() {
		v := rr.Values()
		if len(v) != 5 {
			continue
		}
		res = &result{body: append([]byte(nil), v[2]...), headers: string(v[3]), status: string(v[4])}
		if v[0] != nil {
			n, err := strconv.ParseInt(string(v[0]), 10, 64)
			if err == nil {
				res.total = &n
			}
		}
		res.n, _ = strconv.ParseInt(string(v[1]), 10, 64)
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("rest: main statement returned no row")
	}
	return res, nil
}

func ptr(s string) *string { return &s }

func searchPath(schema string) string {
	p := pgx.Identifier{schema}.Sanitize()
	if schema != "public" {
		p += ", public"
	}
	return p + ", extensions"
}

// requestHeaders is request.headers: lower-cased names to values.
func requestHeaders(h http.Header) []byte {
	m := make(map[string]string, len(h))
	for k, v := range h {
		m[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	b, _ := json.Marshal(m)
	return b
}

func requestCookies(r *http.Request) []byte {
	m := map[string]string{}
	for _, c := range r.Cookies() {
		m[c.Name] = c.Value
	}
	b, _ := json.Marshal(m)
	return b
}
