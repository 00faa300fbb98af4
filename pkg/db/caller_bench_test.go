package db_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// BenchmarkSetup is what each part of the per-request setup costs: one
// prepared statement per sub-benchmark, executed in its own implicit
// transaction (one round trip, as a read sends it), with a member's
// claims (~600 B) and a browser's headers (~1 KB). "select1" is the round
// trip alone; subtract it. pg-ns/op is the backend's own CPU time per
// execution, the figure to compare on a busy machine. Run with -count and compare with benchstat
// (docs/performance.md, "Speed III").
func BenchmarkSetup(b *testing.B) {
	ctx := context.Background()
	db := pgtest.New(b)
	pools, err := dbpkg.Open(ctx, db.URL, "", 1)
	if err != nil {
		b.Fatal(err)
	}
	defer pools.Close()
	conn, err := pools.REST.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()

	claims := []byte(`{"aud":"authenticated","exp":1900000000,"iat":1800000000,"iss":"http://localhost:8080/auth/v1",` +
		`"sub":"7f0c7c5e-2d5b-4a53-9a0e-3b3c1c1f2a11","email":"member@example.com","phone":"",` +
		`"app_metadata":{"provider":"email","providers":["email"]},"user_metadata":{"email":"member@example.com",` +
		`"email_verified":true,"phone_verified":false,"sub":"7f0c7c5e-2d5b-4a53-9a0e-3b3c1c1f2a11"},` +
		`"role":"authenticated","aal":"aal1","amr":[{"method":"password","timestamp":1800000000}],` +
		`"session_id":"0b8e1c52-4f3a-4c55-8c1e-6d0d2a9b7e33","is_anonymous":false}`)
	headers := []byte(`{"host":"localhost:8080","user-agent":"` + strings.Repeat("Mozilla/5.0 ", 8) + `",` +
		`"accept":"application/json","accept-language":"en-GB,en;q=0.9","accept-encoding":"gzip, deflate, br",` +
		`"authorization":"Bearer ` + strings.Repeat("x", 560) + `","apikey":"sb_publishable_0123456789abcdef",` +
		`"x-client-info":"supabase-js-web/2.86.0","content-profile":"public","prefer":"return=representation"}`)
	c := dbpkg.Caller{Role: "authenticated", Claims: claims, Method: "GET", Path: "/rest/v1/releases",
		Headers: headers, Cookies: []byte("{}"), SearchPath: `"public", "public", "extensions"`, StatementTimeout: 10e9, ReadOnly: true}
	full := c.SetupArgs()
	needed, neededArgs := c.SetupFor(0)
	one := func(name string, val []byte) (string, [][]byte) {
		return "SELECT set_config('" + name + "', $1, true)", [][]byte{val}
	}
	cases := []struct {
		name string
		sql  string
		args [][]byte
	}{
		{"select1", "SELECT 1", nil},
		{"full", dbpkg.SetupSQL, full},
		{"needed", needed, neededArgs},
	}
	for _, p := range []struct {
		name, guc string
		val       []byte
	}{
		{"role", "role", []byte("authenticated")},
		{"claims600B", "request.jwt.claims", claims},
		{"claims40B", "request.jwt.claims", []byte(`{"role":"anon"}`)},
		{"method", "request.method", []byte("GET")},
		{"path", "request.path", []byte("/rest/v1/releases")},
		{"headers1KB", "request.headers", headers},
		{"headers100B", "request.headers", headers[:90]},
		{"cookies", "request.cookies", []byte("{}")},
		{"timeout", "statement_timeout", []byte("10000")},
		{"search_path", "search_path", full[7]},
		{"read_only", "transaction_read_only", []byte("on")},
	} {
		sql, args := one(p.guc, p.val)
		cases = append(cases, struct {
			name string
			sql  string
			args [][]byte
		}{p.name, sql, args})
	}
	for i, cs := range cases {
		name := "bench_setup_" + string(rune('a'+i))
		if _, err := pc.Prepare(ctx, name, cs.sql, textOIDs(len(cs.args))); err != nil {
			b.Fatalf("%s: %v", cs.name, err)
		}
		b.Run(cs.name, func(b *testing.B) {
			before := backendCPU(b, pc.PID())
			for b.Loop() {
				if err := pc.ExecPrepared(ctx, name, cs.args, nil, nil).Read().Err; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(backendCPU(b, pc.PID())-before)/float64(b.N), "pg-ns/op")
		})
	}
}

// backendCPU is the nanoseconds the PostgreSQL backend pid has run on a
// CPU (/proc/<pid>/schedstat): unlike wall time it does not grow when the
// machine is busy, so it compares shapes on a loaded machine.
func backendCPU(b *testing.B, pid uint32) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
	if err != nil {
		b.Skipf("backend CPU time: %v (PostgreSQL on another host?)", err)
	}
	f := strings.Fields(string(raw))
	n, _ := strconv.ParseInt(f[0], 10, 64)
	return n
}

func textOIDs(n int) []uint32 {
	oids := make([]uint32, n)
	for i := range oids {
		oids[i] = 25
	}
	return oids
}

// BenchmarkSetConfig is one set_config's own cost, without the statement
// around it: each operation calls it 200 times in one statement, and
// pg-ns/op is the backend's CPU time per call. "none" is the loop alone.
func BenchmarkSetConfig(b *testing.B) {
	ctx := context.Background()
	db := pgtest.New(b)
	pools, err := dbpkg.Open(ctx, db.URL, "", 1)
	if err != nil {
		b.Fatal(err)
	}
	defer pools.Close()
	conn, err := pools.REST.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	const calls = 200
	for _, p := range []struct{ name, guc, val string }{
		{"none", "", ""},
		{"role", "role", "authenticated"},
		{"claims40B", "request.jwt.claims", `{"role":"anon"}`},
		{"claims600B", "request.jwt.claims", `{"x":"` + strings.Repeat("c", 590) + `"}`},
		{"headers1KB", "request.headers", `{"x":"` + strings.Repeat("h", 1020) + `"}`},
		{"headers4KB", "request.headers", `{"x":"` + strings.Repeat("h", 4090) + `"}`},
		{"method", "request.method", "GET"},
		{"search_path", "search_path", `"public", "public", "extensions"`},
		{"timeout", "statement_timeout", "10000"},
		{"read_only", "transaction_read_only", "on"},
	} {
		sql := "SELECT count(*) FROM generate_series(1, 200)"
		args := [][]byte{}
		if p.guc != "" {
			sql = "SELECT count(set_config('" + p.guc + "', $1, true)) FROM generate_series(1, 200)"
			args = [][]byte{[]byte(p.val)}
		}
		name := "bench_set_config_" + p.name
		if _, err := pc.Prepare(ctx, name, sql, textOIDs(len(args))); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
		b.Run(p.name, func(b *testing.B) {
			before := backendCPU(b, pc.PID())
			for b.Loop() {
				if err := pc.ExecPrepared(ctx, name, args, nil, nil).Read().Err; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(backendCPU(b, pc.PID())-before)/float64(b.N)/calls, "pg-ns/call")
		})
	}
}
