// Package server assembles the gateway: one echo instance with the shared
// middleware (request id, access log, panic recovery, CORS, API keys), the
// /auth/v1 and /rest/v1 modules, health, and the embedded web app.
package server

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
)

// Module registers a group of routes under its prefix.
type Module func(g *echo.Group)

// Deps is what the server is built from.
type Deps struct {
	Config *config.Config
	Log    *slog.Logger
	// Pool answers /health.
	Pool *pgxpool.Pool
	// Auth and REST register /auth/v1 and /rest/v1; nil leaves them out.
	Auth Module
	REST Module
	// Routes adds app-specific routes (e.g. demo covers) before the web
	// app's catch-all.
	Routes func(e *echo.Echo)
	// Web is the built app (index.html at its root); nil serves nothing at /.
	Web fs.FS
	// AccessLog, when set, takes the access-log lines off the request path;
	// its owner closes it after the server stops. Nil writes them inline.
	AccessLog *AccessLog
}

// New returns the gateway's HTTP handler.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.Logger = d.Log
	e.IPExtractor = ipExtractor(d.Config.TrustedProxyHeader)
	e.HTTPErrorHandler = errorHandler(d.Log)

	e.Pre(requestID(), securityHeaders())
	e.Use(accessLog(d.Log, d.AccessLog), recoverPanics(), cors(d.Config.CORSAllowedOrigins))

	e.GET("/health", health(d.Pool))
	keys := apiKeys(d.Config.AnonKey, d.Config.ServiceRoleKey)
	gz := compressAPI(d.Config.CompressMinBytes)
	if d.Auth != nil {
		d.Auth(e.Group("/auth/v1", gz, keys))
	}
	if d.REST != nil {
		d.REST(e.Group("/rest/v1", gz, keys))
	}
	if d.Routes != nil {
		d.Routes(e)
	}
	if d.Web != nil {
		registerWeb(e, d.Web, d.Config)
	}
	return e
}

func health(pool *pgxpool.Pool) echo.HandlerFunc {
	return func(c *echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
		defer cancel()
		if pool != nil {
			if err := pool.Ping(ctx); err != nil {
				return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "database unavailable"})
			}
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	}
}

// Serve runs h on addr until ctx ends, then drains in-flight requests for
// up to 15 s. ready, if not nil, receives the bound address once listening.
func Serve(ctx context.Context, addr string, h http.Handler, log *slog.Logger, ready func(net.Addr)) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	if ready != nil {
		ready(l.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	log.Info("shutting down HTTP server")
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
