package storage

import (
	"bytes"
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
	"github.com/labelbase/labelbase/pkg/storage/backend"
	"github.com/labelbase/labelbase/pkg/token"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const testSecret = "storage-test-secret-storage-test-secret-01"

// env is a fresh database, two users, a file backend in a temporary
// directory and the gateway's handler with /storage/v1 mounted.
type env struct {
	t       testing.TB
	db      *pgtest.DB
	cfg     *config.Config
	api     *API
	be      backend.Backend
	fileBE  *backend.File
	h       http.Handler
	userA   string
	userB   string
	tokA    string
	tokB    string
	anon    string
	service string
}

// policies are the usual owner-based rules, as a project writes them: a
// private bucket "private" whose objects under <uid>/ belong to that user,
// and a public bucket "public".
const policies = `
INSERT INTO storage.buckets (id, name, public) VALUES ('private', 'private', false), ('public', 'public', true);
CREATE POLICY own_select ON storage.objects FOR SELECT TO authenticated
  USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY own_insert ON storage.objects FOR INSERT TO authenticated
  WITH CHECK (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY own_update ON storage.objects FOR UPDATE TO authenticated
  USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text)
  WITH CHECK (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY own_delete ON storage.objects FOR DELETE TO authenticated
  USING (bucket_id = 'private' AND (storage.foldername(name))[1] = auth.uid()::text);
CREATE POLICY buckets_read ON storage.buckets FOR SELECT TO authenticated USING (true);
`

func setup(t testing.TB, settings map[string]string, extraSQL ...string) *env {
	t.Helper()
	ctx := context.Background()
	db := pgtest.New(t)
	for _, sql := range extraSQL {
		if _, err := db.Pool.Exec(ctx, sql); err != nil {
			t.Fatalf("extra sql: %v", err)
		}
	}
	vars := map[string]string{"DATABASE_URL": db.URL, "JWT_SECRET": testSecret, "STORAGE_FILE_PATH": t.TempDir()}
	for k, v := range settings {
		vars[k] = v
	}
	cfg := configtest.New(t, vars)
	// DB_PREPARED_STATEMENTS=false puts the pool in exec mode, as the
	// gateway does behind a transaction pooler.
	pools, err := dbpkg.OpenWith(ctx, dbpkg.Options{OwnerURL: db.URL, Size: 4, Exec: !cfg.DBPreparedStatements})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pools.Close)
	be, err := NewBackend(ctx, cfg.Storage)
	if err != nil {
		t.Fatal(err)
	}
	fileBE, _ := be.(*backend.File)
	log := slog.New(slog.DiscardHandler)
	api, err := New(Deps{Config: cfg, Pool: pools.REST, Verifier: token.NewVerifier(testSecret, "", nil), Backend: be, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, cfg: cfg, api: api, be: be, fileBE: fileBE, anon: cfg.AnonKey, service: cfg.ServiceRoleKey}
	e.h = server.New(server.Deps{Config: cfg, Log: log, Storage: api.Register})
	e.userA = pgtest.CreateUser(t, db.Pool, "a@example.com", "password-a")
	e.userB = pgtest.CreateUser(t, db.Pool, "b@example.com", "password-b")
	e.tokA = e.sign(e.userA)
	e.tokB = e.sign(e.userB)
	return e
}

func (e *env) sign(sub string) string {
	now := time.Now()
	s, err := token.Sign(testSecret, jwt.MapClaims{"sub": sub, "role": "authenticated", "aud": "authenticated",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) String() string { return string(r.body) }

// field reads a top-level string field of a JSON object body.
func (r resp) field(t testing.TB, k string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %q", r.body)
	}
	s, _ := m[k].(string)
	return s
}

// wantErr checks upstream's error shape: HTTP 400 (500 for faults) and the
// real status and message in the body.
func (r resp) wantErr(t testing.TB, statusCode, msgPart string) {
	t.Helper()
	if r.status != http.StatusBadRequest {
		t.Fatalf("status %d, want 400: %s", r.status, r.body)
	}
	if got := r.field(t, "statusCode"); got != statusCode {
		t.Fatalf("statusCode %q, want %q: %s", got, statusCode, r.body)
	}
	if !strings.Contains(r.field(t, "message"), msgPart) {
		t.Fatalf("message %q does not contain %q", r.field(t, "message"), msgPart)
	}
}

func (r resp) wantOK(t testing.TB) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", r.status, r.body)
	}
}

// do sends a request; tok "" sends no Authorization.
func (e *env) do(method, path, tok string, body io.Reader, headers ...string) resp {
	e.t.Helper()
	req := httptest.NewRequest(method, "/storage/v1"+path, body)
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	e.api.Wait()
	return resp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (e *env) doJSON(method, path, tok string, v any, headers ...string) resp {
	e.t.Helper()
	b, _ := json.Marshal(v)
	return e.do(method, path, tok, bytes.NewReader(b), append(headers, "Content-Type", "application/json")...)
}

// put uploads raw bytes (POST, upsert as asked).
func (e *env) put(tok, bucket, key, data string, upsert bool, headers ...string) resp {
	e.t.Helper()
	h := append([]string{"Content-Type", "text/plain;charset=UTF-8"}, headers...)
	if upsert {
		h = append(h, "X-Upsert", "true")
	}
	return e.do(http.MethodPost, "/object/"+bucket+"/"+key, tok, strings.NewReader(data), h...)
}

func (e *env) count(sql string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.Pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// blobs counts the blobs the backend holds.
func (e *env) blobs() int {
	e.t.Helper()
	n := 0
	if err := e.be.Walk(context.Background(), time.Now().Add(time.Hour), func(string) error { n++; return nil }); err != nil {
		e.t.Fatal(err)
	}
	return n
}
