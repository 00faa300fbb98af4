package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/labelbase/labelbase/pkg/app"
	"github.com/labelbase/labelbase/pkg/pgtest"
)

// servedBy is what the test schema's where_am_i view and function say
// about the server that ran the query.
type servedBy struct {
	Replica bool `json:"replica"`
	Port    int  `json:"port"`
}

// replicaSchema creates, on the primary, a view and a function that report
// which server answers, and a table to write to; suffix keeps tests apart.
func replicaSchema(t *testing.T, s *pgtest.ReplicaSet, suffix string) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	sql := strings.ReplaceAll(`
		CREATE VIEW public.where_am_i_{s} AS SELECT pg_is_in_recovery() AS replica, inet_server_port() AS port;
		CREATE FUNCTION public.served_by_{s}() RETURNS json LANGUAGE sql STABLE
		  AS $$ SELECT json_build_object('replica', pg_is_in_recovery(), 'port', inet_server_port()) $$;
		CREATE TABLE public.notes_{s} (id bigserial PRIMARY KEY, body text NOT NULL);
		GRANT SELECT ON public.where_am_i_{s} TO anon, authenticated;
		GRANT SELECT, INSERT ON public.notes_{s} TO anon, authenticated;
		GRANT USAGE ON SEQUENCE public.notes_{s}_id_seq TO anon, authenticated;
		GRANT EXECUTE ON FUNCTION public.served_by_{s}() TO anon, authenticated;`, "{s}", suffix)
	if _, err := c.Exec(ctx, sql); err != nil {
		t.Fatal(err)
	}
	s.WaitReplayed(t)
}

// waitHealthy waits until n replicas are in rotation.
func waitHealthy(t *testing.T, a *app.App, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		healthy := 0
		for _, r := range a.Router.Replicas() {
			if r.State().Healthy {
				healthy++
			}
		}
		if healthy == n {
			return
		}
		if time.Now().After(deadline) {
			for _, r := range a.Router.Replicas() {
				t.Logf("%s: %+v", r.Name, r.State())
			}
			t.Fatalf("%d replicas healthy, want %d within %v", healthy, n, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func whoAnswers(t *testing.T, g *gateway, method, path string) servedBy {
	t.Helper()
	status, body := g.call(t, method, path, "", "Accept", "application/vnd.pgrst.object+json")
	if status != 200 {
		t.Fatalf("%s %s: %d %s", method, path, status, body)
	}
	var sb servedBy
	if err := json.Unmarshal(body, &sb); err != nil {
		t.Fatalf("%s %s: %s", method, path, body)
	}
	return sb
}

// TestReplicaRouting checks, on a primary with two streaming replicas,
// where each kind of request goes; read-your-writes with replay paused;
// and a replica too far behind leaving and rejoining the rotation. The
// subtests share the replicas' replay state, so they run in sequence.
func TestReplicaRouting(t *testing.T) {
	s := pgtest.SharedReplicaSet(t)
	replicaSchema(t, s, "routing")
	g := startGateway(t, s.URL(), map[string]string{
		"DATABASE_REPLICA_URLS":  s.On(s.Replicas[0]) + "," + s.On(s.Replicas[1]),
		"REPLICA_CHECK_INTERVAL": "100ms",
	}, false, nil)
	waitHealthy(t, g.app, 2, 5*time.Second)

	t.Run("reads go to the replicas, round robin", func(t *testing.T) {
		ports := map[int]int{}
		for range 8 {
			for _, path := range []string{"/rest/v1/where_am_i_routing?select=replica,port", "/rest/v1/rpc/served_by_routing"} {
				sb := whoAnswers(t, g, "GET", path)
				if !sb.Replica {
					t.Fatalf("GET %s was served by the primary", path)
				}
				ports[sb.Port]++
			}
		}
		if len(ports) != 2 {
			t.Errorf("reads reached ports %v, want both replicas", ports)
		}
	})
	t.Run("POST rpc and writes go to the primary", func(t *testing.T) {
		status, body := g.call(t, "POST", "/rest/v1/rpc/served_by_routing", "{}")
		var sb servedBy
		if status != 200 || json.Unmarshal(body, &sb) != nil || sb.Replica {
			t.Fatalf("POST rpc: %d %s", status, body)
		}
		if status, body := g.call(t, "POST", "/rest/v1/notes_routing", `{"body":"w"}`); status != 201 {
			t.Fatalf("insert: %d %s", status, body)
		}
	})
	t.Run("auth reads its own writes on the primary with replay paused", func(t *testing.T) {
		pgtest.CreateUser(t, poolOn(t, s.URL()), "routing@example.test", "routing password")
		pauseReplay(t, s, true)
		defer pauseReplay(t, s, false)
		// The session and refresh token just written exist on the primary
		// only: reading them from a replica would answer 401 or 400.
		status, tk := g.grant(t, "password", jsonBody(map[string]string{"email": "routing@example.test", "password": "routing password"}))
		if status != 200 {
			t.Fatalf("sign-in: %d %+v", status, tk)
		}
		if status, body := g.call(t, "GET", "/auth/v1/user", "", "Authorization", "Bearer "+tk.AccessToken); status != 200 {
			t.Fatalf("GET /auth/v1/user: %d %s", status, body)
		}
		if status, tk2 := g.grant(t, "refresh_token", jsonBody(map[string]string{"refresh_token": tk.RefreshToken})); status != 200 {
			t.Fatalf("refresh: %d %+v", status, tk2)
		}
	})
	t.Run("HEAD reads are answered", func(t *testing.T) {
		if status, _ := g.call(t, "HEAD", "/rest/v1/where_am_i_routing", ""); status != 200 {
			t.Fatalf("HEAD: %d", status)
		}
	})
	t.Run("read-your-writes with replay paused", func(t *testing.T) {
		pauseReplay(t, s, true)
		defer pauseReplay(t, s, false)
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar}
		status, hdr, _ := send(t, client, g, "POST", "/rest/v1/notes_routing", `{"body":"mine"}`)
		if status != 201 {
			t.Fatalf("insert: %d", status)
		}
		if !strings.Contains(hdr.Get("Set-Cookie"), app.ReadAfterCookie+"=") {
			t.Fatalf("the write set no %s cookie: %q", app.ReadAfterCookie, hdr.Get("Set-Cookie"))
		}
		// The writer sees its row although no replica has replayed it.
		if _, _, body := send(t, client, g, "GET", "/rest/v1/notes_routing?body=eq.mine", ""); !strings.Contains(body, `"mine"`) {
			t.Fatalf("the writer's read missed its row: %s", body)
		}
		// Another client (no cookie) reads a replica, which has not.
		if _, _, body := send(t, http.DefaultClient, g, "GET", "/rest/v1/notes_routing?body=eq.mine", ""); body != "[]" {
			t.Fatalf("a client without the cookie read %s: was it routed to a replica?", body)
		}
		// A cookie the gateway did not write is ignored, not an error.
		status, _, _ = send(t, http.DefaultClient, g, "GET", "/rest/v1/notes_routing?body=eq.mine", "", "Cookie", app.ReadAfterCookie+"=nonsense")
		if status != 200 {
			t.Fatalf("a bad cookie: %d", status)
		}
	})
	t.Run("a table no replica has replayed yet is read from the primary", func(t *testing.T) {
		pauseReplay(t, s, true)
		defer pauseReplay(t, s, false)
		ctx := context.Background()
		c, err := pgx.Connect(ctx, s.URL())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `CREATE TABLE public.fresh_routing (v int); INSERT INTO public.fresh_routing VALUES (7);
			GRANT SELECT ON public.fresh_routing TO anon; NOTIFY pgrst, 'reload schema'`); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			status, body := g.call(t, "GET", "/rest/v1/fresh_routing?select=v", "")
			if status == 200 {
				if string(body) != `[{"v":7}]` {
					t.Fatalf("body %s", body)
				}
				break
			}
			// 404 until the schema cache reloads; anything else is the
			// replica's 42P01 leaking out.
			if status != 404 || time.Now().After(deadline) {
				t.Fatalf("%d %s", status, body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	t.Run("a replica too far behind leaves and comes back", func(t *testing.T) {
		lagged := startGateway(t, s.URL(), map[string]string{
			"DATABASE_REPLICA_URLS":  s.On(s.Replicas[0]),
			"REPLICA_CHECK_INTERVAL": "100ms",
			"REPLICA_MAX_LAG_BYTES":  "65536",
		}, false, nil)
		waitHealthy(t, lagged.app, 1, 5*time.Second)
		pauseReplay(t, s, true)
		defer pauseReplay(t, s, false)
		writeWAL(t, s, 256<<10)
		began := time.Now()
		for whoAnswers(t, lagged, "GET", "/rest/v1/rpc/served_by_routing").Replica {
			if time.Since(began) > 2*time.Second {
				t.Fatal("a replica 256 KiB behind still served reads after 2 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
		pauseReplay(t, s, false)
		waitHealthy(t, lagged.app, 1, 5*time.Second)
		if !whoAnswers(t, lagged, "GET", "/rest/v1/rpc/served_by_routing").Replica {
			t.Fatal("the replica did not come back after catching up")
		}
	})
}

func pauseReplay(t *testing.T, s *pgtest.ReplicaSet, pause bool) {
	t.Helper()
	fn := "pg_wal_replay_resume()"
	if pause {
		fn = "pg_wal_replay_pause()"
	}
	for _, r := range s.Replicas {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, s.On(r))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT "+fn); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}
}

// writeWAL writes about n bytes of WAL on the primary.
func writeWAL(t *testing.T, s *pgtest.ReplicaSet, n int) {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, fmt.Sprintf(`CREATE TEMP TABLE filler AS SELECT g, repeat('x', 100) AS pad FROM generate_series(1, %d) g;
		CREATE TABLE IF NOT EXISTS public.wal_filler (pad text); INSERT INTO public.wal_filler SELECT pad FROM filler`, n/100)); err != nil {
		t.Fatal(err)
	}
}

// send is one request through client (which may keep cookies).
func send(t *testing.T, client *http.Client, g *gateway, method, path, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, g.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", g.app.Config.AnonKey)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}
