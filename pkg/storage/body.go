package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"
)

// uploadBody is an upload's bytes and what travels with them.
type uploadBody struct {
	r            io.Reader
	mimetype     string
	cacheControl string
	userMeta     json.RawMessage
	// length is the raw body's declared length, -1 when unknown or when
	// it includes multipart framing.
	length int64
}

// maxUserMetadata bounds x-metadata / the metadata field, as upstream
// does (1 MiB).
const maxUserMetadata = 1 << 20

// readUpload interprets the request as storage-js sends it: multipart form
// data (a Blob, File or FormData: cacheControl and metadata fields, then
// the file part) or a raw body (Buffer, string, stream) with content-type,
// cache-control and x-metadata (base64 JSON) headers. The file is never
// read here, only opened for streaming.
func readUpload(c *echo.Context) (*uploadBody, error) {
	r := c.Request()
	ct := r.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if mt == "multipart/form-data" {
		return readMultipart(r)
	}
	b := &uploadBody{r: r.Body, mimetype: ct, cacheControl: r.Header.Get("Cache-Control"), length: r.ContentLength}
	if b.mimetype == "" {
		b.mimetype = "application/octet-stream"
	}
	if b.cacheControl == "" {
		b.cacheControl = "no-cache"
	}
	if x := r.Header.Get("X-Metadata"); x != "" {
		raw, err := base64.StdEncoding.DecodeString(x)
		if err != nil || len(raw) > maxUserMetadata || !isJSONObject(raw) {
			return nil, errInvalid("x-metadata must be a base64-encoded JSON object")
		}
		b.userMeta = raw
	}
	return b, nil
}

func readMultipart(r *http.Request) (*uploadBody, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, errInvalid("malformed multipart body").WithCause(err)
	}
	b := &uploadBody{cacheControl: "no-cache", length: -1}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, errInvalid("the multipart body has no file part")
		}
		if err != nil {
			return nil, errInvalid("malformed multipart body").WithCause(err)
		}
		if p.FileName() != "" || p.FormName() == "" {
			if b.mimetype == "" {
				b.mimetype = p.Header.Get("Content-Type")
			}
			if b.mimetype == "" {
				b.mimetype = "application/octet-stream"
			}
			b.r = p
			return b, nil
		}
		if err := readField(p, b); err != nil {
			return nil, err
		}
	}
}

// readField takes one of the form fields that precede the file.
func readField(p *multipart.Part, b *uploadBody) error {
	v, err := io.ReadAll(io.LimitReader(p, maxUserMetadata+1))
	if err != nil {
		return errInvalid("malformed multipart body").WithCause(err)
	}
	if len(v) > maxUserMetadata {
		return errInvalid("form field " + p.FormName() + " is too large")
	}
	switch p.FormName() {
	case "cacheControl":
		s := strings.TrimSpace(string(v))
		if s != "" {
			b.cacheControl = "max-age=" + s
		}
	case "metadata", "userMetadata":
		// Upstream reads metadata, else userMetadata (older clients).
		if !isJSONObject(v) {
			return errInvalid(p.FormName() + " must be a JSON object")
		}
		if p.FormName() == "metadata" || b.userMeta == nil {
			b.userMeta = v
		}
	case "contentType":
		b.mimetype = strings.TrimSpace(string(v))
	}
	return nil
}

func isJSONObject(b []byte) bool {
	var m map[string]any
	return json.Unmarshal(b, &m) == nil && m != nil
}
