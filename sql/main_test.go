package sqlfiles_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// caller is whoever a statement runs as: the database role the gateway
// switches to plus the JWT claims it puts in request.jwt.claims.
type caller struct {
	name   string
	role   string
	claims []byte
}

var (
	anon    = caller{name: "anon", role: "anon", claims: []byte(`{"role":"anon"}`)}
	service = caller{name: "service", role: "service_role", claims: []byte(`{"role":"service_role"}`)}
)

func member(name, id string) caller {
	return caller{name: name, role: "authenticated", claims: pgtest.UserClaims(id)}
}

// env is a fresh migrated database plus the gateway's production-style REST
// pool, which logs in as the owner but drops to the privilege-less
// authenticator role; every statement a caller runs goes through it.
type env struct {
	db   *pgtest.DB
	rest *pgxpool.Pool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := pgtest.New(t)
	pools, err := dbpkg.Open(context.Background(), db.URL, "", 8)
	if err != nil {
		t.Fatalf("open pools: %v", err)
	}
	t.Cleanup(pools.Close)
	return &env{db: db, rest: pools.REST}
}

// errRollback makes dbpkg.Tx roll back, so cases that write leave the
// shared fixture as they found it.
var errRollback = errors.New("rollback")

// exec runs one statement as c in a transaction that is rolled back and
// returns the rows it returned or affected.
func (e *env) exec(ctx context.Context, c caller, sql string, args ...any) (int64, error) {
	var n int64
	err := dbpkg.Tx(ctx, e.rest, c.role, c.claims, false, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, sql, args...)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		return errRollback
	})
	if errors.Is(err, errRollback) {
		err = nil
	}
	return n, err
}

// read runs fn as c in a read-only transaction.
func (e *env) read(ctx context.Context, c caller, fn func(pgx.Tx) error) error {
	return dbpkg.Tx(ctx, e.rest, c.role, c.claims, true, fn)
}

// queryIDs runs a query as c and returns its first column.
func (e *env) queryIDs(ctx context.Context, c caller, sql string, args ...any) ([]int64, error) {
	var got []int64
	err := e.read(ctx, c, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, sql, args...)
		var err error
		got, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	return got, err
}

// ids is queryIDs for queries that must succeed; a nil result becomes an
// empty slice so it compares equal to []int64{}.
func (e *env) ids(t *testing.T, c caller, sql string, args ...any) []int64 {
	t.Helper()
	got, err := e.queryIDs(context.Background(), c, sql, args...)
	if err != nil {
		t.Fatalf("as %s: %s: %v", c.name, sql, err)
	}
	if got == nil {
		got = []int64{}
	}
	return got
}

// count runs a query as c that returns one bigint.
func (e *env) count(t *testing.T, c caller, sql string, args ...any) int64 {
	t.Helper()
	got := e.ids(t, c, sql, args...)
	if len(got) != 1 {
		t.Fatalf("as %s: %s: got %d rows, want 1", c.name, sql, len(got))
	}
	return got[0]
}

// superExec runs setup SQL (one or more statements, no arguments) as the
// superuser.
func superExec(t *testing.T, db *pgtest.DB, sql string) {
	t.Helper()
	if _, err := db.Pool.Exec(context.Background(), sql); err != nil {
		t.Fatalf("setup: %v\n%s", err, sql)
	}
}

// withUsers replaces :A and :B in sql with the users' ids as uuid literals.
func withUsers(sql, a, b string) string {
	return strings.NewReplacer(":A", "'"+a+"'::uuid", ":B", "'"+b+"'::uuid").Replace(sql)
}

// requirePgError fails unless err is a PostgreSQL error with the SQLSTATE
// code and a message containing msg.
func requirePgError(t *testing.T, err error, code, msg string) *pgconn.PgError {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		t.Fatalf("err = %v; want SQLSTATE %s %q", err, code, msg)
	}
	if pgErr.Code != code || !strings.Contains(pgErr.Message, msg) {
		t.Fatalf("err = %s %q; want SQLSTATE %s %q", pgErr.Code, pgErr.Message, code, msg)
	}
	return pgErr
}

func requireIDs(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s = %v; want %v", what, got, want)
	}
}

// sorted returns a sorted copy, for results whose order is not part of the
// contract (random releases).
func sorted(ids []int64) []int64 {
	s := slices.Clone(ids)
	slices.Sort(s)
	if s == nil {
		s = []int64{}
	}
	return s
}

// without returns ids minus drop, sorted.
func without(ids []int64, drop ...int64) []int64 {
	var out []int64
	for _, id := range ids {
		if !slices.Contains(drop, id) {
			out = append(out, id)
		}
	}
	return sorted(out)
}

// pageOf is the page of full that a 1-based page number and size select.
func pageOf(full []int64, page, size int) []int64 {
	lo := min((page-1)*size, len(full))
	hi := min(lo+size, len(full))
	return append([]int64{}, full[lo:hi]...)
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
