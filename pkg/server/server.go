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

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
)

// Module registers a group of routes under its prefix.
type Module func(g *echo.Group)

// Deps is what the server is built from.
type Deps struct {
	Config *config.Config
	Log    *slog.Logger
	// Ready answers /readyz (and /health): nil when the gateway can serve,
	// i.e. the database answers and the schema cache is loaded. Nil Ready
	// means always ready.
	Ready func(ctx context.Context) error
	// Metrics, when set, sees every request after routing (so it can read
	// the route template).
	Metrics echo.MiddlewareFunc
	// Auth and REST register /auth/v1 and /rest/v1; nil leaves them out.
	Auth Module
	REST Module
	// Realtime registers /realtime/v1 (the WebSocket and HTTP broadcast);
	// nil leaves it out. It gets the apikey check but not compression:
	// a gzip writer would sit between the socket and its hijack, and
	// broadcast answers are empty anyway.
	Realtime Module
	// Routes adds app-specific routes (e.g. demo covers) before the web
	// app's catch-all.
	Routes func(e *echo.Echo)
	// Web is the built app (index.html at its root); nil serves nothing at /.
	Web fs.FS
	// AccessLog, when set, takes the access-log lines off the request path;
	// its owner closes it after the server stops. Nil writes them inline.
	AccessLog *AccessLog
	// RequestLog is the level of those lines, the slow-request threshold
	// and the traffic counters; the zero value logs every request at Info.
	RequestLog RequestLog
}

// New returns the gateway's HTTP handler.
func New(d Deps) *echo.Echo {
	e := echo.New()
	e.Logger = d.Log
	e.IPExtractor = ipExtractor(d.Config.TrustedProxyHeader)
	e.HTTPErrorHandler = errorHandler(d.Log)

	e.Pre(requestID(), securityHeaders())
	if d.Metrics != nil {
		e.Use(d.Metrics)
	}
	e.Use(accessLog(d.Log, d.AccessLog, d.RequestLog), recoverPanics(), cors(d.Config.CORSAllowedOrigins))

	e.GET("/livez", livez)
	e.GET("/readyz", readyz(d.Ready))
	e.GET("/health", readyz(d.Ready)) // the name earlier releases probed
	keys := apiKeys(d.Config.AnonKey, d.Config.ServiceRoleKey)
	gz := compressAPI(d.Config.CompressMinBytes)
	if d.Auth != nil {
		d.Auth(e.Group("/auth/v1", gz, keys))
	}
	if d.REST != nil {
		d.REST(e.Group("/rest/v1", gz, keys))
	}
	if d.Realtime != nil {
		d.Realtime(e.Group("/realtime/v1", keys))
	}
	if d.Routes != nil {
		d.Routes(e)
	}
	if d.Web != nil {
		registerWeb(e, d.Web, d.Config)
	}
	return e
}

// livez answers 200 while the process serves HTTP, whatever the database
// does: a liveness probe built on the database would restart every
// gateway during a database restart they would otherwise ride out.
func livez(c *echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz answers 200 when the gateway can serve requests and 503 when it
// cannot (take it out of the balancer, do not restart it). The reason is
// logged, not sent: the probe is on the public port.
func readyz(ready func(context.Context) error) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if ready != nil {
			ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
			defer cancel()
			if err := ready(ctx); err != nil {
				c.Logger().WarnContext(ctx, "not ready", "err", err)
				return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
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
