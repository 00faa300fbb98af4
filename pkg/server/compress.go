package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/labstack/echo/v5"
)

// compressMinSize is the smallest response worth compressing: below it,
// gzip's header and CPU cost more than the bytes saved.
const compressMinSize = 1024

// compressResponses gzips responses of compressible types above
// compressMinSize for clients that accept gzip, and marks them
// Vary: Accept-Encoding. Responses that already carry an encoding (the
// web app's precompressed assets) pass through.
//
// Hand-written rather than klauspost's gzhttp (whose gzip encoder it uses):
// gzhttp never compresses a response with a Content-Range header, and every
// PostgREST response carries one — for rows, not bytes.
func compressResponses(log func(c *echo.Context, err error)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			r := c.Request()
			if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
				return next(c)
			}
			orig := c.Response()
			cw := &compressWriter{ResponseWriter: orig}
			c.SetResponse(echo.NewResponse(cw, c.Echo().Logger))
			err := next(c)
			if err != nil {
				// Render the error here, inside the wrapper, so the body goes
				// through the same writer as every other response.
				log(c, err)
				err = nil
			}
			cw.finish()
			c.SetResponse(orig)
			return err
		}
	}
}

// acceptsGzip reads Accept-Encoding for gzip.
func acceptsGzip(h string) bool { return acceptsEncoding(h, "gzip") }

// acceptsEncoding reads Accept-Encoding, q-values included ("gzip;q=0" is
// a no); "*" accepts any encoding.
func acceptsEncoding(h, enc string) bool {
	for _, part := range strings.Split(h, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != enc && name != "*" {
			continue
		}
		q := 1.0
		if k, v, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.TrimSpace(k) == "q" {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				q = f
			}
		}
		return q > 0
	}
	return false
}

// compressible are the content types worth compressing.
func compressible(ct string) bool {
	ct = strings.ToLower(ct)
	for _, p := range []string{"application/json", "application/vnd.pgrst", "application/openapi+json", "application/geo+json",
		"text/", "application/javascript", "image/svg+xml"} {
		if strings.HasPrefix(ct, p) {
			return true
		}
	}
	return false
}

var gzipPool = sync.Pool{New: func() any { w, _ := gzip.NewWriterLevel(nil, gzip.DefaultCompression); return w }}

// compressWriter holds the response back until it knows whether it is
// big enough to compress.
type compressWriter struct {
	http.ResponseWriter
	status  int
	buf     []byte
	decided bool
	gz      *gzip.Writer
}

func (w *compressWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *compressWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.decided {
		if w.gz != nil {
			return w.gz.Write(b)
		}
		return w.ResponseWriter.Write(b)
	}
	w.buf = append(w.buf, b...)
	if len(w.buf) >= compressMinSize {
		if err := w.decide(true); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

// decide sends the headers, compressed or not, and the buffered body.
func (w *compressWriter) decide(big bool) error {
	w.decided = true
	h := w.Header()
	eligible := h.Get("Content-Encoding") == "" && w.status != http.StatusNoContent &&
		w.status != http.StatusNotModified && compressible(h.Get("Content-Type"))
	if eligible {
		h.Add("Vary", "Accept-Encoding")
	}
	if eligible && big {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		w.gz = gzipPool.Get().(*gzip.Writer)
		w.gz.Reset(w.ResponseWriter)
	}
	w.ResponseWriter.WriteHeader(w.status)
	buf := w.buf
	w.buf = nil
	if len(buf) == 0 {
		return nil
	}
	var err error
	if w.gz != nil {
		_, err = w.gz.Write(buf)
	} else {
		_, err = w.ResponseWriter.Write(buf)
	}
	return err
}

// finish flushes what is held back and closes the encoder.
func (w *compressWriter) finish() {
	if !w.decided {
		if w.status == 0 {
			return // nothing was written; the caller's writer decides
		}
		_ = w.decide(false)
	}
	if w.gz != nil {
		_ = w.gz.Close()
		gzipPool.Put(w.gz)
		w.gz = nil
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *compressWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
