package rest

// One attempt of a request on one connection, as a pipeline: send the
// statements, collect their results, then decide how the transaction ends.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// gucGuardSQL fails (22012) when SQL set response.headers or
// response.status. A folded write sends it after its statement: the
// implicit transaction then commits at Sync only when no GUC needs the
// gateway's checks (applyGUCs), and otherwise rolls back so the write is
// run again the two-round-trip way. It is left out (one statement fewer
// per write) when the schema cache found nothing in the database that
// could set either GUC (schema.Cache.WritesResponse). The division is by
// an expression, not a constant, so the planner cannot fold it into an
// error of its own.
const gucGuardSQL = `SELECT 1 / (CASE WHEN coalesce(current_setting('response.headers', true), '') = ''
 AND coalesce(current_setting('response.status', true), '') = '' THEN 1 ELSE 0 END)`

// errGUCsSet is the guard's refusal: the folded attempt rolled back.
var errGUCsSet = errors.New("rest: response GUCs set by a folded write")

// setsGUCs says whether statements with this text were seen to set
// response GUCs, so that they no longer try the folded path.
func (a *API) setsGUCs(sql string) bool {
	_, ok := a.gucWriters.get(sql)
	return ok
}

const textOID = 25

// step is what one pipelined request returns, in sending order.
type step struct {
	kind stepKind
	// sql and name, for stepPrepare: remembered once the server confirms.
	sql, name string
}

type stepKind uint8

const (
	stepOther   stepKind = iota // BEGIN, setup, pre-request, deallocate
	stepPrepare                 // a statement being prepared
	stepMain                    // the main statement, whose row is the result
	stepCount                   // EXPLAIN whose estimate is the planned count
	stepGuard                   // gucGuardSQL after a folded write
)

// pipeline is one request's statements in flight on a connection.
type pipeline struct {
	pl    *pgconn.Pipeline
	sc    *stmtCache // nil with prepared statements off
	steps []step
	// implicit: no BEGIN; PostgreSQL commits the pipeline at its Sync.
	implicit bool
	// fold: a write committing in that one round trip, guarded.
	fold bool
}

// runOn runs the request on pc. A folded write that SQL made set
// response GUCs is refused by its guard: nothing of it persisted (its
// implicit transaction rolled back), and statements of this shape take
// the explicit transaction from then on, this one at once.
func (a *API) runOn(ctx context.Context, pc *pgconn.PgConn, s *txSpec) (*result, error) {
	res, err := a.attempt(ctx, pc, s)
	if errors.Is(err, errGUCsSet) {
		a.gucWriters.put(s.stmt.SQL, struct{}{})
		res, err = a.attempt(ctx, pc, s)
	}
	return res, err
}

// attempt is one attempt: send, collect, then end the transaction.
func (a *API) attempt(ctx context.Context, pc *pgconn.PgConn, s *txSpec) (*result, error) {
	p, err := a.send(ctx, pc, s)
	if err != nil {
		return nil, err
	}
	res, err := p.collect(s)
	if err != nil {
		a.endTx(ctx, pc, "ROLLBACK")
		return nil, err
	}
	if p.implicit {
		// Reads have no decision; a folded write's only one (response
		// GUCs) was made by the guard before the commit.
		return res, nil
	}
	return a.decide(ctx, pc, s, res)
}

// send pipelines the request: deallocations of stale statements, BEGIN
// unless the transaction is implicit, the setup (role, claims, request
// settings), the pre-request function, the planned count, the main
// statement and, for a folded write, the guard; then Sync.
//
// A read, and a write nothing can refuse once it ran, use the implicit
// transaction of the pipeline: one round trip, committed at Sync.
func (a *API) send(ctx context.Context, pc *pgconn.PgConn, s *txSpec) (*pipeline, error) {
	p := &pipeline{steps: make([]step, 0, 8)}
	if s.prepared {
		p.sc = stmtsOf(pc, a.gen.Load())
	}
	p.fold = s.foldable && !s.rollback && s.plan == nil && !a.setsGUCs(s.stmt.SQL)
	p.implicit = (s.caller.ReadOnly && s.decide == nil) || p.fold
	p.pl = pc.StartPipeline(ctx)
	if p.sc != nil {
		for _, name := range p.sc.takeStale() {
			p.pl.SendDeallocate(name)
			p.steps = append(p.steps, step{kind: stepOther})
		}
	}
	if !p.implicit {
		p.pl.SendQueryParams("BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE", nil, nil, nil, nil)
		p.steps = append(p.steps, step{kind: stepOther})
	}
	if s.plan.verbose() {
		// Before the role switch, while the session is the authenticator,
		// which migration 000022 lets set it.
		p.send(queryIDSQL, nil, stepOther)
	}
	setupSQL, setupArgs := s.caller.SetupFor(s.reads)
	if a.skipRoleSwitch {
		setupArgs[0] = []byte("authenticator")
	}
	p.send(setupSQL, setupArgs, stepOther)
	if s.preRequest != "" {
		p.send("SELECT "+s.preRequest+"()", nil, stepOther)
	}
	// The planned count's EXPLAIN and the statement bind the same values.
	mainArgs := stringArgs(s.stmt.Args)
	if s.stmt.CountSQL != "" && s.plan == nil {
		p.send(s.stmt.CountSQL, mainArgs, stepCount)
	}
	mainSQL := s.stmt.SQL
	if s.plan != nil {
		mainSQL = s.plan.explain(mainSQL)
	}
	if a.observe != nil {
		a.observe(mainSQL, mainArgs, s.caller)
	}
	p.send(mainSQL, mainArgs, stepMain)
	if p.fold && s.guard {
		p.send(gucGuardSQL, nil, stepGuard)
	}
	if err := p.pl.Sync(); err != nil {
		p.pl.Close()
		return nil, err
	}
	return p, nil
}

// send queues one statement: prepared once per connection (and then only
// bound and executed) when prepared statements are on.
func (p *pipeline) send(sql string, args [][]byte, kind stepKind) {
	if p.sc == nil {
		p.pl.SendQueryParams(sql, args, textOIDs(len(args)), nil, nil)
		p.steps = append(p.steps, step{kind: kind})
		return
	}
	name, ok := p.sc.lookup(sql)
	if !ok {
		p.pl.SendPrepare(name, sql, textOIDs(len(args)))
		p.steps = append(p.steps, step{kind: stepPrepare, sql: sql, name: name})
	}
	p.pl.SendQueryPrepared(name, args, nil, nil)
	p.steps = append(p.steps, step{kind: kind})
}

// collect reads every step's result in order, stopping at the first
// error, then the Sync, and closes the pipeline.
func (p *pipeline) collect(s *txSpec) (*result, error) {
	var res *result
	var planned *int64
	var err error
	for _, st := range p.steps {
		if err = p.take(st, s, &res, &planned); err != nil {
			break
		}
	}
	if err == nil {
		err = p.sync()
	}
	if cerr := p.pl.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if planned != nil && res != nil && (s.stmt.EstimateAbove == 0 || (res.total != nil && *res.total > s.stmt.EstimateAbove)) {
		res.total = planned
	}
	return res, nil
}

// take reads step st's result: a prepared statement is remembered, the
// planned count's estimate and the main statement's row are kept, the
// guard's refusal is errGUCsSet, anything else is drained.
func (p *pipeline) take(st step, s *txSpec, res **result, planned **int64) error {
	out, err := p.pl.GetResults()
	if err != nil {
		return err
	}
	rr, rows := out.(*pgconn.ResultReader)
	switch {
	case st.kind == stepGuard:
		return guardResult(out)
	case st.kind == stepPrepare:
		if _, ok := out.(*pgconn.StatementDescription); !ok {
			return fmt.Errorf("rest: unexpected pipeline result %T", out)
		}
		if p.sc != nil {
			p.sc.add(st.sql, st.name)
		}
	case !rows && st.kind != stepOther:
		return fmt.Errorf("rest: unexpected pipeline result %T", out)
	case st.kind == stepCount:
		*planned, err = readEstimate(rr)
	case st.kind == stepMain && s.plan != nil:
		*res, err = readPlan(rr)
	case st.kind == stepMain:
		*res, err = readResult(rr)
	case rows:
		_, err = rr.Close()
	}
	return err
}

// sync reads the pipeline's closing Sync.
func (p *pipeline) sync() error {
	out, err := p.pl.GetResults()
	if _, ok := out.(*pgconn.PipelineSync); err == nil && !ok {
		err = fmt.Errorf("rest: expected pipeline sync, got %T", out)
	}
	return err
}

// guardResult reads gucGuardSQL's answer: its division by zero means
// response GUCs were set (errGUCsSet); any other error is the error.
func guardResult(out any) error {
	rr, ok := out.(*pgconn.ResultReader)
	if !ok {
		return nil
	}
	if _, err := rr.Close(); err != nil {
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "22012" {
			return err
		}
		return errGUCsSet
	}
	return nil
}

// decide ends an explicit transaction: ROLLBACK when the request's check
// refuses the result or it asked for tx=rollback (after checking deferred
// constraints, so a write that could not have committed says why), else
// COMMIT. Whatever fails on the way rolls back.
func (a *API) decide(ctx context.Context, pc *pgconn.PgConn, s *txSpec, res *result) (*result, error) {
	var err error
	if s.decide != nil && s.plan == nil {
		err = s.decide(res)
	}
	end := "COMMIT"
	if s.rollback {
		end = "SET CONSTRAINTS ALL IMMEDIATE"
	}
	if err == nil {
		_, err = pc.Exec(ctx, end).ReadAll()
	}
	if err != nil || s.rollback {
		a.endTx(ctx, pc, "ROLLBACK")
	}
	if err != nil {
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

// readEstimate reads the top plan's row estimate from EXPLAIN (FORMAT JSON).
func readEstimate(rr *pgconn.ResultReader) (*int64, error) {
	var doc []byte
	for rr.NextRow() {
		if v := rr.Values(); len(v) > 0 {
			doc = append(doc[:0], v[0]...)
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	var plans []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if err := json.Unmarshal(doc, &plans); err != nil || len(plans) == 0 {
		return nil, fmt.Errorf("rest: planned count: %w", err)
	}
	n := int64(plans[0].Plan.Rows)
	return &n, nil
}

// readPlan joins EXPLAIN's output: one JSON document, or text lines.
func readPlan(rr *pgconn.ResultReader) (*result, error) {
	var body []byte
	for rr.NextRow() {
		if v := rr.Values(); len(v) > 0 {
			if len(body) > 0 {
				body = append(body, '\n')
			}
			body = append(body, v[0]...)
		}
	}
	if _, err := rr.Close(); err != nil {
		return nil, err
	}
	return &result{body: body}, nil
}

// textOIDs types every parameter as text: the statements cast each one to
// its column's type themselves, so one value format serves every type.
func textOIDs(n int) []uint32 {
	if n <= len(textOIDTable) {
		return textOIDTable[:n]
	}
	oids := make([]uint32, n)
	for i := range oids {
		oids[i] = textOID
	}
	return oids
}

var textOIDTable = func() []uint32 {
	t := make([]uint32, 32)
	for i := range t {
		t[i] = textOID
	}
	return t
}()

func stringArgs(args []*string) [][]byte {
	vals := make([][]byte, len(args))
	for i, a := range args {
		if a != nil {
			vals[i] = []byte(*a)
		}
	}
	return vals
}
