package storage

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"
)

// objectRoute dispatches everything under /object/ itself. Upstream's
// router keeps one tree per method and backtracks, so POST
// /object/public/a/b.txt is an upload to the bucket "public"; echo's
// shared tree would stop at the GET-only /object/public/:bucket/* and
// answer 405. The order of the checks below is upstream's precedence:
// the fixed words first, then bucket/key.
func (a *API) objectRoute(c *echo.Context) error {
	rest := param(c, "*")
	seg := strings.SplitN(rest, "/", 2)
	first, tail := seg[0], ""
	if len(seg) == 2 {
		tail = seg[1]
	}
	m := c.Request().Method
	switch m {
	case http.MethodPost:
		switch {
		case first == "move" && tail == "":
			return a.move(c)
		case first == "copy" && tail == "":
			return a.copy(c)
		case first == "list" && tail != "" && !strings.Contains(tail, "/"):
			return withTarget(c, tail, "", a.list)
		case first == "list-v2" && tail != "" && !strings.Contains(tail, "/"):
			return withTarget(c, tail, "", a.listV2)
		case first == "sign" && tail != "" && !strings.Contains(tail, "/"):
			return withTarget(c, tail, "", a.signMany)
		case first == "sign" && tail != "":
			return target(c, tail, a.sign)
		case first == "upload" && strings.HasPrefix(tail, "sign/"):
			return target(c, strings.TrimPrefix(tail, "sign/"), a.signUpload)
		}
		return target(c, rest, a.upload)
	case http.MethodPut:
		if first == "upload" && strings.HasPrefix(tail, "sign/") {
			return target(c, strings.TrimPrefix(tail, "sign/"), a.uploadSigned)
		}
		return target(c, rest, a.update)
	case http.MethodDelete:
		if first != "" && tail == "" {
			return withTarget(c, first, "", a.remove)
		}
	case http.MethodGet, http.MethodHead:
		return a.readRoute(c, rest, first, tail)
	}
	return echo.ErrMethodNotAllowed
}

func (a *API) readRoute(c *echo.Context, rest, first, tail string) error {
	get := c.Request().Method == http.MethodGet
	switch {
	case first == "authenticated" && tail != "":
		return target(c, tail, a.download(readAuthenticated))
	case first == "public" && tail != "":
		return target(c, tail, a.download(readPublic))
	case first == "sign" && tail != "":
		return target(c, tail, a.download(readSigned))
	case first == "info" && get && strings.HasPrefix(tail, "authenticated/"):
		return target(c, strings.TrimPrefix(tail, "authenticated/"), a.info(readAuthenticated))
	case first == "info" && get && strings.HasPrefix(tail, "public/"):
		return target(c, strings.TrimPrefix(tail, "public/"), a.info(readPublic))
	case first == "info" && get && tail != "":
		return target(c, tail, a.info(readAuthenticated))
	}
	return target(c, rest, a.download(readAuthenticated))
}

// target splits "bucket/key" and runs h with them as its parameters; a
// path without a key names no object.
func target(c *echo.Context, bucketKey string, h echo.HandlerFunc) error {
	b, k, ok := strings.Cut(bucketKey, "/")
	if !ok || b == "" {
		return errInvalid("the path must name a bucket and an object key")
	}
	return withTarget(c, b, k, h)
}

const (
	ctxBucket = "storage.bucket"
	ctxKey    = "storage.key"
)

func withTarget(c *echo.Context, bucket, key string, h echo.HandlerFunc) error {
	c.Set(ctxBucket, bucket)
	c.Set(ctxKey, key)
	return h(c)
}
