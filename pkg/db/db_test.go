package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestRESTPoolFailsClosed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	pools, err := dbpkg.Open(ctx, db.URL, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()

	var who string
	if err := pools.REST.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != "authenticator" {
		t.Fatalf("REST pool runs as %q, %v", who, err)
	}
	if _, err := pools.REST.Exec(ctx, "SELECT count(*) FROM public.labels"); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("a query without a role switch must be refused, got %v", err)
	}

	// With the switch, the role and claims apply to that transaction only.
	err = dbpkg.Tx(ctx, pools.REST, "authenticated", []byte(`{"sub":"00000000-0000-0000-0000-000000000001","role":"authenticated"}`), true,
		func(tx pgx.Tx) error {
			var role, sub string
			if err := tx.QueryRow(ctx, "SELECT current_user, auth.uid()::text").Scan(&role, &sub); err != nil {
				return err
			}
			if role != "authenticated" || sub != "00000000-0000-0000-0000-000000000001" {
				t.Errorf("inside the transaction: %s %s", role, sub)
			}
			_, err := tx.Exec(ctx, "CREATE TEMP TABLE x (v int)")
			return err
		})
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("a write in a read-only transaction: %v", err)
	}
	if err := pools.REST.QueryRow(ctx, "SELECT current_user").Scan(&who); err != nil || who != "authenticator" {
		t.Fatalf("after the transaction the connection runs as %q, %v", who, err)
	}
}

func TestTxRefusesRolesOutsideTheAllowList(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	for _, role := range []string{"postgres", "authenticator", "", "anon; DROP TABLE labels"} {
		err := dbpkg.Tx(context.Background(), db.Pool, role, nil, true, func(pgx.Tx) error {
			t.Fatalf("fn ran for role %q", role)
			return nil
		})
		if !errors.Is(err, dbpkg.ErrRoleNotAllowed) {
			t.Errorf("role %q: err = %v", role, err)
		}
	}
}

func TestOpenRejectsAPrivilegedRESTLogin(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	// REST_DATABASE_URL pointing at the superuser would serve clients with
	// every privilege: Open refuses it.
	if _, err := dbpkg.Open(context.Background(), db.URL, db.URL, 2); err == nil || !strings.Contains(err.Error(), "authenticator") {
		t.Fatalf("err = %v", err)
	}
}

// With the Supabase-style defaults on, a table the owner creates afterwards
// is usable by anon (RLS permitting); turned off again, the next one is not.
func TestDefaultGrants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	pools, err := dbpkg.Open(ctx, db.URL, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	readAsAnon := func(table string) error {
		return dbpkg.Tx(ctx, pools.REST, "anon", nil, true, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "SELECT * FROM public."+table)
			return err
		})
	}
	if err := dbpkg.ApplyDefaultGrants(ctx, pools.Owner, []string{"public"}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "CREATE TABLE public.open_notes (id int)"); err != nil {
		t.Fatal(err)
	}
	if err := readAsAnon("open_notes"); err != nil {
		t.Fatalf("with default grants, anon must read a new table: %v", err)
	}
	if err := dbpkg.ApplyDefaultGrants(ctx, pools.Owner, []string{"public"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "CREATE TABLE public.closed_notes (id int)"); err != nil {
		t.Fatal(err)
	}
	if err := readAsAnon("closed_notes"); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("without default grants, anon must be refused a new table, got %v", err)
	}
	// service_role keeps its default privileges either way (migration 1).
	if err := dbpkg.Tx(ctx, pools.REST, "service_role", nil, true, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SELECT * FROM public.closed_notes")
		return err
	}); err != nil {
		t.Fatalf("service_role on a new table: %v", err)
	}
}
