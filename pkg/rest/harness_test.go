package rest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/config/configtest"
	dbpkg "github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/pgtest"
	"github.com/labelbase/labelbase/pkg/server"
	"github.com/labelbase/labelbase/pkg/token"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSecret = "test-secret-test-secret-test-secret-0123"

// env is one fresh database with demo rows, two users and a gateway.
type env struct {
	t      testing.TB
	db     *pgtest.DB
	cfg    *config.Config
	api    *API
	h      http.Handler
	userA  string
	userB  string
	tokA   string
	tokB   string
	labels []int64
	rels   []int64
}

func setup(t testing.TB, extra ...string) *env { return setupEnv(t, nil, extra...) }

// setupEnv is setup with settings added to the gateway's environment.
func setupEnv(t testing.TB, settings map[string]string, extra ...string) *env {
	t.Helper()
	ctx := context.Background()
	db := pgtest.New(t)
	for _, sql := range extra {
		if _, err := db.Pool.Exec(ctx, sql); err != nil {
			t.Fatalf("extra sql: %v", err)
		}
	}
	envVars := map[string]string{"DATABASE_URL": db.URL, "JWT_SECRET": testSecret, "DB_STATEMENT_TIMEOUT": "5s", "MAX_BODY_BYTES": "65536"}
	for k, v := range settings {
		envVars[k] = v
	}
	cfg := configtest.New(t, envVars)
	pools, err := dbpkg.Open(ctx, db.URL, "", 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)
	api, err := New(ctx, Deps{Config: cfg, Pool: pools.REST, Verifier: token.NewVerifier(testSecret, "authenticated", nil), Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, cfg: cfg, api: api}
	e.h = server.New(server.Deps{Config: cfg, Log: slog.New(slog.DiscardHandler), Ready: api.Ready, REST: api.Register})
	e.userA = pgtest.CreateUser(t, db.Pool, "a@example.com", "password-a")
	e.userB = pgtest.CreateUser(t, db.Pool, "b@example.com", "password-b")
	e.tokA = e.sign(e.userA, "authenticated", time.Hour)
	e.tokB = e.sign(e.userB, "authenticated", time.Hour)
	rows, err := db.Pool.Query(ctx, `INSERT INTO public.labels (label_name, label_url, tags) VALUES
		('Alpha Records', 'https://alpha.bandcamp.com', '{jazz,ambient}'),
		('Beta Sounds', 'https://beta.bandcamp.com', '{techno}'),
		('Gamma, (Parens) "Quoted"', 'https://gamma.bandcamp.com', '{jazz,"free jazz"}'),
		('delta', 'https://delta.bandcamp.com', '{}')
		RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		e.labels = append(e.labels, id)
	}
	rows.Close()
	rows, err = db.Pool.Query(ctx, `INSERT INTO public.releases (label_id, title, artist, release_url, release_date, genres)
		SELECT l.id, l.label_name || ' release ' || g, 'Artist ' || g, l.label_url || '/album/' || g, date '2024-01-01' + g, '{jazz}'
		  FROM public.labels l, generate_series(1, 3) g
		 WHERE l.label_name <> 'delta' ORDER BY l.id, g RETURNING id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		e.rels = append(e.rels, id)
	}
	rows.Close()
	return e
}

func (e *env) sign(sub, role string, ttl time.Duration) string {
	now := time.Now()
	s, err := token.Sign(testSecret, jwt.MapClaims{"sub": sub, "role": role, "aud": "authenticated",
		"iat": now.Unix(), "exp": now.Add(ttl).Unix()})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// resp is a recorded response.
type resp struct {
	status int
	header http.Header
	body   string
}

func (r resp) json(t *testing.T) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.body), &v); err != nil {
		t.Fatalf("body is not JSON: %v: %q", err, r.body)
	}
	return v
}

// do sends a request; bearer "" sends no Authorization.
func (e *env) do(method, path, bearer, body string, hdr ...string) resp {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, strings.ReplaceAll(path, " ", "%20"), rd)
	req.Header.Set("apikey", e.cfg.AnonKey)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return resp{status: rec.Code, header: rec.Header(), body: rec.Body.String()}
}
