package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"
)

// floors are the four references the gateway is measured against (see
// Result): the pools they run on and the two bare HTTP servers. All of them
// serve the current scenario, which measure sets before its phases.
type floors struct {
	// pools are the floor's pools, one per caller (anon, member), role and
	// claims set once per connection.
	pools map[bool]*pgxpool.Pool
	// setup switches role per transaction, as the gateway does, so it logs
	// in like the gateway's pool (the owner here) without a session role.
	setup   *pgxpool.Pool
	current atomic.Pointer[scenario]
	http    *httptest.Server
	fair    *httptest.Server
	// httpTo and fairTo send the HTTP floors the gateway's own request
	// (method, path and query, apikey, bearer token, body, Prefer), so
	// the client builds and the server reads the same bytes on every HTTP
	// side: the floors differ from the gateway only in what they do with
	// the request, not in what they are sent.
	httpTo, fairTo target
	closeList      []func()
}

// openFloors opens the floors' pools and starts their HTTP servers; close
// releases whatever was opened, also after an error.
// to is the gateway's target: the floors' requests carry the same apikey
// and bearer token.
func openFloors(ctx context.Context, url string, size int, user string, to target) (*floors, error) {
	f := &floors{pools: map[bool]*pgxpool.Pool{}}
	for _, member := range []bool{false, true} {
		p, err := floorPool(ctx, url, size, member, user)
		if err != nil {
			f.close()
			return nil, err
		}
		f.closeList = append(f.closeList, p.Close)
		f.pools[member] = p
	}
	// The setup and fair floors switch callers per transaction, so their
	// pool starts as the session's own role; it has -pool connections like
	// every other side (pgxpool's default, four on two cores, made the
	// fair floor's writes look cheaper: fewer backends committing at once).
	setup, err := sizedPool(ctx, url, size, nil)
	if err != nil {
		f.close()
		return nil, err
	}
	f.setup = setup
	f.closeList = append(f.closeList, setup.Close)
	// The HTTP floor runs the statement on the floor's pool; the fair floor
	// switches to the scenario's caller (role and claims only) in the
	// statement's pipeline, as any RLS-enforcing service must.
	f.http = f.serve(func(ctx context.Context, s *scenario) ([]byte, error) {
		return floorExec(ctx, f.pools[s.member], s.sql, s.args)
	})
	f.fair = f.serve(func(ctx context.Context, s *scenario) ([]byte, error) {
		return fairExec(ctx, f.setup, s.caller, s.sql, s.args)
	})
	f.closeList = append(f.closeList, f.http.Close, f.fair.Close)
	f.httpTo, f.fairTo = to, to
	f.httpTo.base, f.fairTo.base = f.http.URL, f.fair.URL
	return f, nil
}

// close undoes openFloors in reverse order.
func (f *floors) close() {
	for i := len(f.closeList) - 1; i >= 0; i-- {
		f.closeList[i]()
	}
}

// serve starts a bare handler that reads the request's body, runs the
// current scenario's statement with exec and writes its JSON body with
// the status the gateway answers (200 when any 2xx will do).
func (f *floors) serve(exec func(context.Context, *scenario) ([]byte, error)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		s := f.current.Load()
		body, err := exec(r.Context(), s)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if s.status != 0 {
			w.WriteHeader(s.status)
		}
		_, _ = w.Write(body)
	}))
}

// ops are the four floors' operations for s, in Result's order after the
// gateway: floor, HTTP floor, setup floor, fair floor.
func (f *floors) ops(ctx context.Context, s *scenario) []namedOp {
	f.current.Store(s)
	floor := f.pools[s.member]
	setupArgs := s.caller.SetupArgs()
	return []namedOp{
		{"floor", func() error { _, err := floorExec(ctx, floor, s.sql, s.args); return err }},
		{"HTTP floor", f.httpTo.op(ctx, s)},
		{"setup floor", func() error { return setupExec(ctx, f.setup, setupArgs, s.sql, s.args) }},
		{"fair floor", f.fairTo.op(ctx, s)},
	}
}
