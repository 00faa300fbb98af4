package server

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// errorHandler renders every error a handler returns, in the wire shape of
// the API the path belongs to, and logs server faults once with their cause.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(c *echo.Context, err error) {
		if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Committed {
			return
		}
		e := toAPIError(err)
		if e.Status >= 500 {
			log.ErrorContext(c.Request().Context(), "request failed", "method", c.Request().Method,
				"path", c.Request().URL.Path, "status", e.Status, "code", e.Code, "cause", e.Cause)
		}
		flavor := apierr.PostgREST
		switch path := c.Request().URL.Path; {
		case strings.HasPrefix(path, "/auth/"):
			flavor = apierr.GoTrue
		case strings.HasPrefix(path, "/storage/"):
			flavor = apierr.Storage
		}
		body, header := apierr.Body(e, flavor, c.Request())
		for k, v := range header {
			c.Response().Header()[k] = v
		}
		if c.Request().Method == http.MethodHead {
			_ = c.NoContent(e.Status)
			return
		}
		_ = c.Blob(e.Status, header.Get("Content-Type"), body)
	}
}

// toAPIError maps echo's own routing errors to API errors.
func toAPIError(err error) *apierr.Error {
	var e *apierr.Error
	if errors.As(err, &e) {
		return e
	}
	var sc echo.HTTPStatusCoder
	if errors.As(err, &sc) {
		switch status := sc.StatusCode(); status {
		case http.StatusNotFound:
			return apierr.New(status, "not_found", "Not found")
		case http.StatusMethodNotAllowed:
			return apierr.New(status, "method_not_allowed", "Method not allowed")
		case http.StatusRequestEntityTooLarge:
			return apierr.New(status, "request_too_large", "Request body too large")
		default:
			if status >= 400 && status < 500 {
				return apierr.New(status, "bad_request", "%s", http.StatusText(status)).WithCause(err)
			}
		}
	}
	return apierr.Internal(err)
}
