package storage

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/storage/backend"
)

// readMode is how a read route decides access.
type readMode int

const (
	// readAuthenticated: the Bearer caller, under RLS (SELECT), unless the
	// bucket is public, whose objects anyone may read.
	readAuthenticated readMode = iota
	// readPublic: no caller; the bucket must be public.
	readPublic
	// readSigned: no caller; a signed URL's token names the object.
	readSigned
)

// object is a row of storage.objects as the read paths need it.
type object struct {
	ID         string
	Bucket     string
	Name       string
	Version    string
	Meta       map[string]any
	UserMeta   json.RawMessage
	Created    *time.Time
	Updated    *time.Time
	Accessed   *time.Time
	signClaims *downloadClaims
}

func (o *object) metaString(k string) string { s, _ := o.Meta[k].(string); return s }

func (o *object) size() int64 {
	if n, ok := o.Meta["size"].(float64); ok {
		return int64(n)
	}
	return 0
}

const objectCols = `id::text, bucket_id, name, coalesce(version, ''), coalesce(metadata, '{}'), coalesce(user_metadata, '{}'), created_at, updated_at, last_accessed_at`

func scanObject(row pgx.Row) (*object, error) {
	var o object
	var meta []byte
	if err := row.Scan(&o.ID, &o.Bucket, &o.Name, &o.Version, &meta, &o.UserMeta, &o.Created, &o.Updated, &o.Accessed); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(meta, &o.Meta)
	return &o, nil
}

// find resolves the object a read route names, deciding access by mode.
func (a *API) find(c *echo.Context, mode readMode, op string) (*object, error) {
	ctx := c.Request().Context()
	bucket, key := param(c, "bucket"), param(c, "*")
	var who *caller
	var sc *downloadClaims
	switch mode {
	case readSigned:
		claims, err := a.verifyDownload(c.QueryParam("token"), bucket, key)
		if err != nil {
			return nil, err
		}
		sc, who = claims, a.serviceCaller(c)
	case readPublic:
		public, err := a.bucketPublic(ctx, c, bucket)
		if err != nil {
			return nil, err
		}
		if !public {
			return nil, errBucketNotFound()
		}
		who = a.serviceCaller(c)
	default:
		var err error
		if who, err = a.authenticate(c); err != nil {
			return nil, err
		}
		// Upstream reads objects of a public bucket without RLS, for any
		// caller.
		if public, err := a.bucketPublic(ctx, c, bucket); err == nil && public {
			who = a.serviceCaller(c)
		}
	}
	var o *object
	err := a.tx(ctx, who, op, true, func(tx pgx.Tx) error {
		var err error
		o, err = scanObject(tx.QueryRow(ctx, `SELECT `+objectCols+` FROM storage.objects WHERE bucket_id = $1 AND name = $2`, bucket, key))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errObjectNotFound()
	}
	if err != nil {
		return nil, pgErr("SELECT", err)
	}
	o.signClaims = sc
	return o, nil
}

// bucketPublic reads a bucket's public flag as service_role.
func (a *API) bucketPublic(ctx context.Context, c *echo.Context, bucket string) (bool, error) {
	var public bool
	err := a.tx(ctx, a.serviceCaller(c), "storage.bucket.get", true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT coalesce(public, false) FROM storage.buckets WHERE id = $1`, bucket).Scan(&public)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, errBucketNotFound()
	}
	if err != nil {
		return false, pgErr("SELECT", err)
	}
	return public, nil
}

func (a *API) download(mode readMode) echo.HandlerFunc {
	return func(c *echo.Context) error {
		o, err := a.find(c, mode, "storage.object.get")
		if err != nil {
			return err
		}
		blob, err := a.be.Open(c.Request().Context(), o.Version)
		if errors.Is(err, backend.ErrNotFound) {
			return errObjectNotFound().WithCause(err)
		}
		if err != nil {
			return err
		}
		defer blob.Close()
		a.objectHeaders(c, o)
		_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Time{})
		http.ServeContent(c.Response(), c.Request(), "", modTime(o), blob)
		return nil
	}
}

func modTime(o *object) time.Time {
	if o.Updated != nil {
		return *o.Updated
	}
	return time.Time{}
}

// objectHeaders sets what upstream's renderer sends with an object:
// stored type (HTML as plain text, so a bucket cannot serve pages on the
// gateway's origin), cache-control, ETag, and the attachment name when
// ?download asks for one. ServeContent adds Last-Modified, the length,
// ranges and the 304.
func (a *API) objectHeaders(c *echo.Context, o *object) {
	h := c.Response().Header()
	ct := o.metaString("mimetype")
	if ct == "" {
		ct = "application/octet-stream"
	}
	if strings.HasPrefix(strings.ToLower(ct), "text/html") {
		ct = "text/plain"
	}
	h.Set("Content-Type", ct)
	if cc := o.metaString("cacheControl"); cc != "" {
		h.Set("Cache-Control", cc)
	}
	if et := o.metaString("eTag"); et != "" {
		h.Set("ETag", et)
	}
	h.Set("Accept-Ranges", "bytes")
	if o.signClaims != nil && o.signClaims.ExpiresAt != nil {
		h.Set("Expires", o.signClaims.ExpiresAt.UTC().Format(http.TimeFormat))
	}
	if q := c.Request().URL.Query(); q.Has("download") {
		name := q.Get("download")
		if name == "" {
			name = path.Base(o.Name)
		}
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	}
}

func (a *API) info(mode readMode) echo.HandlerFunc {
	return func(c *echo.Context) error {
		o, err := a.find(c, mode, "storage.object.info")
		if err != nil {
			return err
		}
		um := o.UserMeta
		if len(um) == 0 {
			um = json.RawMessage("{}")
		}
		return c.JSON(http.StatusOK, map[string]any{
			"id": o.ID, "name": o.Name, "version": o.Version, "bucket_id": o.Bucket,
			"size": o.size(), "content_type": o.metaString("mimetype"), "cache_control": o.metaString("cacheControl"),
			"etag": o.metaString("eTag"), "metadata": um, "last_modified": isoPtr(o.Updated),
			"created_at": isoPtr(o.Created),
		})
	}
}

// purgeCache answers the CDN purge storage-js can call; there is no CDN
// cache in front of this gateway, so there is nothing to purge.
func (a *API) purgeCache(c *echo.Context) error {
	if _, err := a.authenticate(c); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"message": "success"})
}
