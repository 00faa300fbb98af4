package db_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestParseLSN(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]dbpkg.LSN{"0/0": 0, "0/16B3748": 0x16B3748, "16/B374D848": 0x16B374D848, "FFFFFFFF/FFFFFFFF": dbpkg.MaxLSN} {
		got, err := dbpkg.ParseLSN(in)
		if err != nil || got != want {
			t.Errorf("ParseLSN(%q) = %v, %v; want %v", in, got, err, want)
		}
		if err == nil && got.String() != in {
			t.Errorf("%q printed back as %q", in, got.String())
		}
	}
	for _, bad := range []string{"", "/", "1/", "/1", "x/1", "1/2/3", "100000000/0", "-1/0", "1 /2", "0/1;drop"} {
		if _, err := dbpkg.ParseLSN(bad); err == nil {
			t.Errorf("ParseLSN(%q) accepted", bad)
		}
	}
}

func TestRetryOnPrimary(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]bool{
		"40001": true, "40P01": true, "42P01": true, "42703": true, "42883": true, "3F000": true, "57P01": true,
		"23505": false, "42501": false, "P0001": false, "22P02": false,
	} {
		if got := dbpkg.RetryOnPrimary(&pgconn.PgError{Code: code}); got != want {
			t.Errorf("SQLSTATE %s: %v, want %v", code, got, want)
		}
	}
	if !dbpkg.RetryOnPrimary(io.ErrUnexpectedEOF) || dbpkg.RetryOnPrimary(errors.New("other")) || dbpkg.RetryOnPrimary(context.Canceled) {
		t.Error("non-SQL errors misclassified")
	}
}

func TestConnectionBudget(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	// The test server allows 200 connections, 3 reserved.
	if spare, err := (dbpkg.Budget{Gateways: 4, PoolSize: 10}).Check(ctx, db.Pool); err != nil || spare != 197-84 {
		t.Fatalf("4 × (2×10+1): spare %d, %v", spare, err)
	}
	_, err := dbpkg.Budget{Gateways: 10, PoolSize: 10}.Check(ctx, db.Pool)
	if err == nil || !strings.Contains(err.Error(), "10 gateways × (2 × DB_POOL_SIZE 10 + 1 + 0 sessions) = 210") {
		t.Fatalf("210 connections on a server allowing 197: %v", err)
	}
	// Realtime's two sessions per gateway count too: 9 × 21 fits, 9 × 23 does not.
	if _, err := (dbpkg.Budget{Gateways: 9, PoolSize: 10}).Check(ctx, db.Pool); err != nil {
		t.Fatal(err)
	}
	_, err = dbpkg.Budget{Gateways: 9, PoolSize: 10, Sessions: 2}.Check(ctx, db.Pool)
	if err == nil || !strings.Contains(err.Error(), "9 gateways × (2 × DB_POOL_SIZE 10 + 1 + 2 sessions) = 207") {
		t.Fatalf("with sessions: %v", err)
	}
	// Behind a pooler only three per gateway (and the sessions) reach the
	// server directly.
	if _, err := (dbpkg.Budget{Gateways: 10, PoolSize: 10, Pooled: true}).Check(ctx, db.Pool); err != nil {
		t.Fatal(err)
	}
	_, err = dbpkg.Budget{Gateways: 70, PoolSize: 10, Pooled: true}.Check(ctx, db.Pool)
	if err == nil || !strings.Contains(err.Error(), "70 gateways × 3 direct connections") || !strings.Contains(err.Error(), "= 210") {
		t.Fatalf("pooled: %v", err)
	}
	_, err = dbpkg.Budget{Gateways: 40, PoolSize: 10, Pooled: true, Sessions: 2}.Check(ctx, db.Pool)
	if err == nil || !strings.Contains(err.Error(), "40 gateways × 5 direct connections") {
		t.Fatalf("pooled with sessions: %v", err)
	}
}

// TestReplicaConnectionBudget: each replica must hold every gateway's REST
// pool and health check; one that cannot be reached at start is not
// checked, and does not stop the gateway.
func TestReplicaConnectionBudget(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	pools, err := dbpkg.OpenWith(ctx, dbpkg.Options{OwnerURL: db.URL, Size: 2,
		ReplicaURLs: []string{db.URL, "postgres://x:y@127.0.0.1:1/db?sslmode=disable"}})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	up, down := pools.Replicas[0], pools.Replicas[1]
	// 197 usable: 17 gateways × (10 + 1) = 187 fits, 18 × 11 = 198 does not.
	if reached, err := (dbpkg.Budget{Gateways: 17, PoolSize: 10}).CheckReplica(ctx, up); !reached || err != nil {
		t.Fatalf("187 of 197: reached %v, %v", reached, err)
	}
	reached, err := dbpkg.Budget{Gateways: 18, PoolSize: 10}.CheckReplica(ctx, up)
	if !reached || err == nil || !strings.Contains(err.Error(), "replica "+up.Name+": 18 gateways × (DB_POOL_SIZE 10 + 1 health check) = 198") {
		t.Fatalf("198 of 197: reached %v, %v", reached, err)
	}
	if reached, err := (dbpkg.Budget{Gateways: 18, PoolSize: 10}).CheckReplica(ctx, down); reached || err != nil {
		t.Fatalf("a replica down at start: reached %v, %v", reached, err)
	}
}

func TestCheckListenOnADirectConnection(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	if err := dbpkg.CheckListen(context.Background(), db.Pool.Config().ConnConfig); err != nil {
		t.Fatal(err)
	}
}

func TestOpenWithABadReplicaURLFailsAndADownReplicaDoesNot(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	if _, err := dbpkg.OpenWith(ctx, dbpkg.Options{OwnerURL: db.URL, Size: 2, ReplicaURLs: []string{"postgres://x:y@127.0.0.1:1/db?sslmode=bogus"}}); err == nil {
		t.Fatal("a replica URL that does not parse was accepted")
	}
	pools, err := dbpkg.OpenWith(ctx, dbpkg.Options{OwnerURL: db.URL, Size: 2, ReplicaURLs: []string{"postgres://x:y@127.0.0.1:1/db?sslmode=disable"}})
	if err != nil {
		t.Fatalf("a replica that is down at start stopped the gateway: %v", err)
	}
	defer pools.Close()
	rt := dbpkg.NewRouter(pools, dbpkg.RouterOptions{MaxLagBytes: 1 << 20})
	rt.CheckNow(ctx)
	if st := pools.Replicas[0].State(); st.Healthy || !strings.Contains(st.Why, "unreachable") {
		t.Fatalf("state %+v", st)
	}
	if rt.Pick(0) != nil {
		t.Fatal("a down replica was picked")
	}
	if _, err := rt.PrimaryLSN(ctx); err != nil {
		t.Fatal(err)
	}
	// Behind a pooler the REST pool needs its own login.
	if _, err := dbpkg.OpenWith(ctx, dbpkg.Options{OwnerURL: db.URL, Size: 2, DirectURL: db.URL}); err == nil || !strings.Contains(err.Error(), "REST_DATABASE_URL") {
		t.Fatalf("err = %v", err)
	}
}

// TestExecModeSendsUUIDs: with DB_PREPARED_STATEMENTS=false (exec mode,
// no server-side description of parameters) a [16]byte and a [][16]byte
// still reach uuid and uuid[] parameters, as realtime's private-channel
// check sends them.
func TestExecModeSendsUUIDs(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	pools, err := dbpkg.OpenWith(ctx, dbpkg.Options{OwnerURL: db.URL, Size: 2, Exec: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	id := [16]byte{0x87, 0xc8, 1, 5, 0, 0x9c, 0x41, 0x81, 0x87, 0xae, 0x45, 9, 0x6b, 0xf6, 0x3e, 0x19}
	var n int
	var text string
	if err := pools.Owner.QueryRow(ctx, "SELECT cardinality($1::uuid[]), $2::uuid::text", [][16]byte{id, id}, id).Scan(&n, &text); err != nil {
		t.Fatal(err)
	}
	if n != 2 || text != "87c80105-009c-4181-87ae-45096bf63e19" {
		t.Fatalf("got %d, %s", n, text)
	}
}
