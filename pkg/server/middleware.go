package server

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/requestid"
)

// Context keys set by the middleware.
const (
	// KeyRole is "anon" or "service_role": what the apikey header grants.
	KeyRole = "apikey_role"
	// KeyRequestID is the request's id, also sent as X-Request-Id.
	KeyRequestID = "request_id"
)

func requestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			id := c.Request().Header.Get("X-Request-Id")
			if id == "" || len(id) > 64 {
				b := make([]byte, 8)
				_, _ = rand.Read(b)
				id = hex.EncodeToString(b)
			}
			c.Set(KeyRequestID, id)
			// In the request's context too, for the log lines written
			// while serving it (requestid.Handler).
			c.SetRequest(c.Request().WithContext(requestid.With(c.Request().Context(), id)))
			c.Response().Header().Set("X-Request-Id", id)
			return next(c)
		}
	}
}

// accessLog writes one line per request at the policy's level (Warn when
// slow): through sink's queue when there is one, else synchronously to log.
// Query strings are left out: they can carry filter values that are
// personal data. bytes counts what went on the wire, after compression.
func accessLog(log *slog.Logger, sink *AccessLog, policy RequestLog) echo.MiddlewareFunc {
	if sink == nil {
		sink = &AccessLog{h: log.Handler(), closed: true} // closed: Log writes inline
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				// Render the error here rather than after us, so that the
				// line reports the body that was sent (its bytes were 0);
				// the error handler skips a committed response.
				c.Echo().HTTPErrorHandler(c, err)
			}
			dur := time.Since(start)
			status, size := 0, int64(0)
			if r, _ := echo.UnwrapResponse(c.Response()); r != nil {
				status, size = r.Status, r.Size
			}
			level := policy.Level
			// A WebSocket's line is written when it closes, after minutes
			// or hours: long, not slow.
			slow := policy.Slow > 0 && dur >= policy.Slow && status != http.StatusSwitchingProtocols
			if slow && level < slog.LevelWarn {
				level = slog.LevelWarn
			}
			if policy.Traffic == nil && !sink.enabled(level) {
				return err
			}
			if err != nil && status == 0 {
				status = toAPIError(err).Status
			}
			if policy.Traffic != nil {
				policy.Traffic.add(status, size, dur)
			}
			if !sink.enabled(level) {
				return err
			}
			msg := "request"
			if slow {
				msg = "slow request"
			}
			id, _ := c.Get(KeyRequestID).(string)
			rec := slog.NewRecord(time.Now(), level, msg, 0)
			rec.AddAttrs(
				slog.String("request_id", id),
				slog.String("method", c.Request().Method),
				slog.String("path", c.Request().URL.Path),
				slog.Int("status", status),
				slog.Int64("bytes", size),
				slog.Int64("duration_ms", dur.Milliseconds()),
				slog.String("ip", c.RealIP()))
			sink.Log(rec)
			return err
		}
	}
}

// securityHeaders are set on every response: no MIME sniffing, no framing
// of the app by other sites (clickjacking), and no full URLs (which can
// carry filter values) leaking to other origins as referrers.
//
// The four values share one array per response instead of a slice each
// (Header.Set allocates one per call, and these four were a tenth of a
// read's allocations). Each header gets a slice of it with no room to
// grow, so an Add to one copies rather than overwriting its neighbour.
func securityHeaders() echo.MiddlewareFunc {
	keys := [...]string{"X-Content-Type-Options", "X-Frame-Options", "Content-Security-Policy", "Referrer-Policy"}
	values := [...]string{"nosniff", "DENY", "frame-ancestors 'none'", "strict-origin-when-cross-origin"}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			h := c.Response().Header()
			vs := values // a copy, this response's own
			all := vs[:]
			for i, k := range keys {
				h[k] = all[i : i+1 : i+1]
			}
			return next(c)
		}
	}
}

func recoverPanics() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					// recover returns the panic's value itself, never
					// a wrapped one.
					if r == http.ErrAbortHandler { //nolint:errorlint // see above
						panic(r)
					}
					err = apierr.Internal(fmt.Errorf("panic: %v", r))
				}
			}()
			return next(c)
		}
	}
}

// cors answers preflights and exposes the headers supabase-js must read:
// without Content-Range every count is null, and without
// X-Supabase-Api-Version every auth error code is lost.
func cors(origins []string) echo.MiddlewareFunc {
	any := len(origins) == 0
	allowed := map[string]bool{}
	for _, o := range origins {
		if o == "*" {
			any = true
		}
		allowed[strings.TrimRight(o, "/")] = true
	}
	const (
		methods = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
		// x-upsert, x-metadata, cache-control and if-none-match are what
		// storage-js sends with uploads and downloads; ETag,
		// Content-Disposition and X-Transformations are what it may read.
		headers = "authorization, apikey, x-client-info, content-type, x-supabase-api-version, accept, accept-profile, content-profile, prefer, range, range-unit, x-retry-count, x-request-id, x-upsert, x-metadata, cache-control, if-none-match"
		expose  = "Content-Range, Content-Location, Location, X-Supabase-Api-Version, Retry-After, X-Sb-Error-Code, Preference-Applied, X-Request-Id, ETag, Content-Disposition, X-Transformations"
	)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			origin := c.Request().Header.Get("Origin")
			h := c.Response().Header()
			if origin != "" && (any || allowed[origin]) {
				if any {
					h.Set("Access-Control-Allow-Origin", "*")
				} else {
					h.Set("Access-Control-Allow-Origin", origin)
					h.Add("Vary", "Origin")
				}
				h.Set("Access-Control-Expose-Headers", expose)
				if c.Request().Method == http.MethodOptions && c.Request().Header.Get("Access-Control-Request-Method") != "" {
					h.Set("Access-Control-Allow-Methods", methods)
					h.Set("Access-Control-Allow-Headers", headers)
					h.Set("Access-Control-Max-Age", "86400")
					return c.NoContent(http.StatusNoContent)
				}
			}
			return next(c)
		}
	}
}

// apiKeys requires the apikey header (or query parameter) to be the anon or
// service-role key, as Supabase's API gateway does, and records which.
func apiKeys(anon, service string) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			if c.Request().Method == http.MethodOptions {
				return next(c)
			}
			key := c.Request().Header.Get("apikey")
			if key == "" {
				key = c.QueryParam("apikey")
			}
			switch {
			case key == "":
				e := apierr.New(http.StatusUnauthorized, "no_api_key", "No API key found in request")
				e.Hint = "No `apikey` request header or url param was found."
				return e
			case subtle.ConstantTimeCompare([]byte(key), []byte(service)) == 1:
				c.Set(KeyRole, "service_role")
			case subtle.ConstantTimeCompare([]byte(key), []byte(anon)) == 1:
				c.Set(KeyRole, "anon")
			default:
				e := apierr.New(http.StatusUnauthorized, "invalid_api_key", "Invalid API key")
				e.Hint = "Double check your `anon` or `service_role` API key."
				return e
			}
			return next(c)
		}
	}
}

// ipExtractor reads the client IP from the connection, or from header when
// the operator says a trusted proxy sets it. For X-Forwarded-For the
// right-most entry is the one the trusted proxy appended.
func ipExtractor(header string) echo.IPExtractor {
	return func(r *http.Request) string {
		if header != "" {
			if v := r.Header.Get(header); v != "" {
				parts := strings.Split(v, ",")
				ip := strings.TrimSpace(parts[len(parts)-1])
				if net.ParseIP(ip) != nil {
					return ip
				}
			}
		}
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return r.RemoteAddr
		}
		return host
	}
}
