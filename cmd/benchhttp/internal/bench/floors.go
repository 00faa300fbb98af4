package bench

import (
	"context"
	"fmt"
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
	setup     *pgxpool.Pool
	current   atomic.Pointer[scenario]
	http      *httptest.Server
	fair      *httptest.Server
	client    *http.Client
	closeList []func()
}

// openFloors opens the floors' pools and starts their HTTP servers; close
// releases whatever was opened, also after an error.
func openFloors(ctx context.Context, url string, size int, user string, client *http.Client) (*floors, error) {
	f := &floors{pools: map[bool]*pgxpool.Pool{}, client: client}
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
	return f, nil
}

// close undoes openFloors in reverse order.
func (f *floors) close() {
	for i := len(f.closeList) - 1; i >= 0; i-- {
		f.closeList[i]()
	}
}

// serve starts a bare handler that runs the current scenario's statement
// with exec and writes its JSON body.
func (f *floors) serve(exec func(context.Context, *scenario) ([]byte, error)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := exec(r.Context(), f.current.Load())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
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
		{"HTTP floor", func() error { return f.get(ctx, f.http.URL) }},
		{"setup floor", func() error { return setupExec(ctx, f.setup, setupArgs, s.sql, s.args) }},
		{"fair floor", func() error { return f.get(ctx, f.fair.URL) }},
	}
}

// get is one request to an HTTP floor.
func (f *floors) get(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := f.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("http floor: status %d", res.StatusCode)
	}
	return nil
}
