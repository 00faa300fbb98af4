package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// Every shape of SetupFor sets what it names to the caller's values, the
// same values SetupSQL sets, and leaves the others unset.
func TestSetupForEveryShape(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	pools, err := dbpkg.Open(ctx, db.URL, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	defer pools.Close()
	names := []string{"request.method", "request.path", "request.headers", "request.cookies"}
	for shape := range 32 {
		c := dbpkg.Caller{Role: "authenticated", Claims: []byte(`{"role":"authenticated","sub":"x"}`),
			Method: "PATCH", Path: "/rest/v1/t", Headers: []byte(`{"x":"y"}`), Cookies: []byte(`{"c":"d"}`),
			SearchPath: `"public"`, ReadOnly: shape%2 == 0}
		if shape&16 != 0 {
			c.StatementTimeout = 1234 * time.Millisecond
		}
		reads := dbpkg.Reads(shape & 15)
		sql, args := c.SetupFor(reads)
		if n := strings.Count(sql, "$"); n != len(args) {
			t.Fatalf("shape %d: %d placeholders, %d args: %s", shape, n, len(args), sql)
		}
		tx, err := pools.REST.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(args))
		for i, a := range args {
			vals[i] = string(a)
		}
		if _, err := tx.Exec(ctx, sql, vals...); err != nil {
			t.Fatalf("shape %d: %v", shape, err)
		}
		var role, claims, sp, ro, timeout string
		got := make([]*string, 4)
		err = tx.QueryRow(ctx, `SELECT current_user, current_setting('request.jwt.claims'), current_setting('search_path'),
			current_setting('transaction_read_only'), current_setting('statement_timeout'),
			nullif(current_setting($1, true), ''), nullif(current_setting($2, true), ''),
			nullif(current_setting($3, true), ''), nullif(current_setting($4, true), '')`,
			names[0], names[1], names[2], names[3]).Scan(&role, &claims, &sp, &ro, &timeout, &got[0], &got[1], &got[2], &got[3])
		_ = tx.Rollback(ctx)
		if err != nil {
			t.Fatalf("shape %d: %v", shape, err)
		}
		wantRO := map[bool]string{true: "on", false: "off"}[c.ReadOnly]
		if role != "authenticated" || claims != string(c.Claims) || sp != `"public"` || ro != wantRO {
			t.Errorf("shape %d: role %q claims %q search_path %q read-only %q", shape, role, claims, sp, ro)
		}
		if shape&16 != 0 && timeout != "1234ms" {
			t.Errorf("shape %d: statement_timeout %q", shape, timeout)
		}
		want := []string{"PATCH", "/rest/v1/t", `{"x":"y"}`, `{"c":"d"}`}
		for i := range names {
			switch sent := reads&(1<<i) != 0; {
			case sent && (got[i] == nil || *got[i] != want[i]):
				t.Errorf("shape %d: %s = %v, want %q", shape, names[i], got[i], want[i])
			case !sent && got[i] != nil:
				t.Errorf("shape %d: %s = %q, want unset", shape, names[i], *got[i])
			}
		}
	}
}
