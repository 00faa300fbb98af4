// Package storage is /storage/v1: Supabase Storage's HTTP API as
// storage-js 2.x calls it, over the storage schema (buckets, objects) with
// RLS deciding every operation, and the bytes in a Backend.
//
// Every database step runs in the caller's own role-and-claims transaction
// (db.AsCaller, the setup /rest/v1 uses) with the storage.operation GUC
// set. Bytes never sit inside a transaction: an upload is streamed to a
// temporary file first, then a short transaction writes the row and moves
// the file into place under a fresh version, so readers see the old or the
// new object, never half of one.
package storage

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/storage/backend"
	"github.com/labelbase/labelbase/pkg/token"
)

// Deps is what the storage API is built from.
type Deps struct {
	Config *config.Config
	// Pool logs in as authenticator (the REST pool): every statement runs
	// as the caller's role, or as service_role for what upstream does "as
	// superuser" (public reads, signed URLs).
	Pool     *pgxpool.Pool
	Verifier *token.Verifier
	Backend  backend.Backend
	Log      *slog.Logger
	// Now is the clock for signed URLs; nil means time.Now.
	Now func() time.Time
}

// API serves /storage/v1.
type API struct {
	cfg      config.Storage
	anonRole string
	pool     *pgxpool.Pool
	verifier *token.Verifier
	be       backend.Backend
	log      *slog.Logger
	now      func() time.Time
	render   *renderer

	// wg tracks deletions of replaced versions that run after a response.
	wg sync.WaitGroup
}

// New builds the API.
func New(d Deps) (*API, error) {
	if d.Config == nil || d.Pool == nil || d.Verifier == nil || d.Backend == nil {
		return nil, errors.New("storage: Config, Pool, Verifier and Backend are required")
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	log := d.Log
	if log == nil {
		log = slog.Default()
	}
	a := &API{cfg: d.Config.Storage, anonRole: d.Config.DBAnonRole, pool: d.Pool, verifier: d.Verifier,
		be: d.Backend, log: log, now: now}
	a.render = newRenderer(d.Config.Storage)
	return a, nil
}

// NewBackend opens the backend the settings name.
func NewBackend(ctx context.Context, cfg config.Storage) (backend.Backend, error) {
	if cfg.Backend == "s3" {
		s3, err := backend.NewS3(ctx, backend.S3Options{Endpoint: cfg.S3Endpoint, Region: cfg.S3Region,
			Bucket: cfg.S3Bucket, AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey,
			PathStyle: cfg.S3ForcePathStyle})
		if err != nil {
			return nil, err
		}
		return s3, nil
	}
	return backend.NewFile(cfg.FilePath)
}

// Register mounts the routes on g (/storage/v1). The group must not
// require an apikey: upstream's gateway lets storage through without one,
// and public and signed URLs must work from a bare <img src>.
func (a *API) Register(g *echo.Group) {
	g.GET("/bucket", a.listBuckets)
	g.GET("/bucket/:id", a.getBucket)
	g.POST("/bucket", a.createBucket)
	g.PUT("/bucket/:id", a.updateBucket)
	g.POST("/bucket/:id/empty", a.emptyBucket)
	g.DELETE("/bucket/:id", a.deleteBucket)

	// Everything under /object/ goes through one dispatcher (router.go).
	g.Any("/object/*", a.objectRoute)

	g.GET("/render/image/authenticated/:bucket/*", a.renderImage(readAuthenticated))
	g.GET("/render/image/public/:bucket/*", a.renderImage(readPublic))
	g.GET("/render/image/sign/:bucket/*", a.renderImage(readSigned))

	g.DELETE("/cdn/:bucket/*", a.purgeCache)
}

// Wait blocks until deferred blob deletions have finished.
func (a *API) Wait() { a.wg.Wait() }

// param reads a path parameter decoded: the bucket or key the /object
// dispatcher resolved, or echo's, which comes escaped when the request
// path had escapes (URL.RawPath set) and decoded otherwise.
func param(c *echo.Context, name string) string {
	switch name {
	case "bucket":
		if v, ok := c.Get(ctxBucket).(string); ok {
			return v
		}
	case "*":
		if v, ok := c.Get(ctxKey).(string); ok {
			return v
		}
	}
	v := c.Param(name)
	if c.Request().URL.RawPath != "" {
		if u, err := url.PathUnescape(v); err == nil {
			v = u
		}
	}
	return v
}

// tx runs fn as who, with storage.operation set to op.
func (a *API) tx(ctx context.Context, who *caller, op string, readOnly bool, fn func(pgx.Tx) error) error {
	c := db.Caller{Role: who.role, Claims: who.claims, Method: who.method, Path: who.path,
		Headers: who.headers, ReadOnly: readOnly}
	return db.AsCaller(ctx, a.pool, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('storage.operation', $1, true)`, op); err != nil {
			return err
		}
		return fn(tx)
	})
}
