package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/storage"
	"github.com/labelbase/labelbase/pkg/token"
)

// newStorage opens the storage backend the settings name and builds
// /storage/v1 on the REST pool (it runs as the caller's role, as /rest/v1
// does).
func newStorage(ctx context.Context, cfg *config.Config, pools *db.Pools, verifier *token.Verifier, log *slog.Logger) (*storage.API, error) {
	be, err := storage.NewBackend(ctx, cfg.Storage)
	if err != nil {
		return nil, fmt.Errorf("app: storage: %w", err)
	}
	api, err := storage.New(storage.Deps{Config: cfg, Pool: pools.REST, Verifier: verifier, Backend: be, Log: log})
	if err != nil {
		return nil, fmt.Errorf("app: storage: %w", err)
	}
	return api, nil
}
