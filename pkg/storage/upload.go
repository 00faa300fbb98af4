package storage

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/storage/backend"
)

// write is one upload: where, as whom, and whether it may replace.
type write struct {
	who    *caller
	bucket string
	key    string
	// owner is the object's owner_id (the caller's sub, or a signed
	// upload token's owner).
	owner  string
	upsert bool
	op     string
}

// bucketLimits are what an upload is checked against.
type bucketLimits struct {
	sizeLimit *int64
	mimes     []string
}

func (a *API) upload(c *echo.Context) error {
	return a.uploadAs(c, c.Request().Header.Get("X-Upsert") == "true", "storage.object.upload")
}

// update is PUT /object: always an upsert, as upstream.
func (a *API) update(c *echo.Context) error {
	return a.uploadAs(c, true, "storage.object.upload_update")
}

func (a *API) uploadAs(c *echo.Context, upsert bool, op string) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	w := write{who: who, bucket: param(c, "bucket"), key: param(c, "*"), owner: who.sub, upsert: upsert, op: op}
	id, err := a.store(c, w)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"Id": id, "Key": w.bucket + "/" + w.key})
}

// errProbe rolls back a permission probe that succeeded.
var errProbe = errors.New("storage: probe done")

// store runs an upload: checks, a permission probe, streaming to a
// temporary file, then one short transaction that writes the row and
// moves the file into place. It returns the object's id.
func (a *API) store(c *echo.Context, w write) (string, error) {
	ctx := c.Request().Context()
	if !validKey(w.key, a.cfg.UTF8Keys) {
		return "", errInvalidKey(w.key)
	}
	lim, err := a.limits(ctx, c, w.bucket)
	if err != nil {
		return "", err
	}
	body, err := readUpload(c)
	if err != nil {
		return "", err
	}
	if !mimeAllowed(body.mimetype, lim.mimes) {
		return "", errMime(body.mimetype)
	}
	max := a.cfg.FileSizeLimit
	if lim.sizeLimit != nil && *lim.sizeLimit < max {
		max = *lim.sizeLimit
	}
	if body.length > max {
		return "", errTooLarge()
	}
	// The probe asks RLS before any byte is read, so a refused upload
	// costs no disk (upstream's testPermission).
	probe := w.row("00000000-0000-0000-0000-000000000000", "probe", nil, body)
	err = a.tx(ctx, w.who, w.op, false, func(tx pgx.Tx) error {
		if _, err := a.writeRow(ctx, tx, w, probe); err != nil {
			return err
		}
		return errProbe
	})
	if err != nil && !errors.Is(err, errProbe) {
		return "", a.writeErr(err, w)
	}
	// Large bodies outlast the server's read timeout; an upload may take
	// as long as its bytes need.
	_ = http.NewResponseController(c.Response()).SetReadDeadline(time.Time{})
	version := newUUID()
	staged, err := a.be.Stage(ctx, body.r, max, version)
	if errors.Is(err, backend.ErrTooLarge) {
		return "", errTooLarge()
	}
	if err != nil {
		return "", errInvalid("the upload could not be read").WithCause(err)
	}
	defer staged.Discard()
	row := w.row(newUUID(), version, staged, body)
	var res rowResult
	err = a.tx(ctx, w.who, w.op, false, func(tx pgx.Tx) error {
		if res, err = a.writeRow(ctx, tx, w, row); err != nil {
			return err
		}
		// The bytes go into place before the row commits: a crash here
		// leaves a blob no row names (swept later), never a row without
		// its blob.
		return staged.Commit(ctx)
	})
	if err != nil {
		_ = a.be.Delete(context.Background(), version)
		return "", a.writeErr(err, w)
	}
	a.deleteBlobs(res.oldVersion)
	return res.id, nil
}

func (a *API) writeErr(err error, w write) error {
	if w.upsert {
		return pgErr("INSERT/UPDATE/SELECT (an upsert needs all three)", err)
	}
	return pgErr("INSERT", err)
}

// limits reads the bucket's size limit and allowed types as service_role
// (upstream reads them as superuser: they are not the caller's to hide).
func (a *API) limits(ctx context.Context, c *echo.Context, bucket string) (*bucketLimits, error) {
	var l bucketLimits
	err := a.tx(ctx, a.serviceCaller(c), "storage.bucket.get", true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT file_size_limit, allowed_mime_types FROM storage.buckets WHERE id = $1`, bucket).
			Scan(&l.sizeLimit, &l.mimes)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errBucketNotFound()
	}
	if err != nil {
		return nil, pgErr("SELECT", err)
	}
	return &l, nil
}

// objectRow is what an upload writes. Its JSON columns are sent as strings:
// with DB_PREPARED_STATEMENTS=false (exec mode, behind a pooler) pgx types a
// parameter by its Go type alone, and a []byte would go as bytea text
// (`\x7b...`), which jsonb refuses.
type objectRow struct {
	id, version string
	metadata    []byte
	userMeta    []byte
}

func (w write) row(id, version string, st backend.Staged, b *uploadBody) objectRow {
	size, etag := int64(0), ""
	if st != nil {
		size, etag = st.Size(), `"`+st.MD5()+`"`
	}
	meta, _ := json.Marshal(map[string]any{
		"eTag": etag, "size": size, "mimetype": b.mimetype, "cacheControl": b.cacheControl,
		"lastModified": isoTime(time.Now()), "contentLength": size, "httpStatusCode": 200,
	})
	um := []byte(b.userMeta)
	if um == nil {
		um = []byte("{}")
	}
	return objectRow{id: id, version: version, metadata: meta, userMeta: um}
}

type rowResult struct {
	id, oldVersion string
}

// writeRow inserts the object's row, or upserts it. A plain insert has no
// RETURNING, so an INSERT policy alone allows it, as on Supabase; an
// upsert needs INSERT, UPDATE and SELECT (ON CONFLICT DO UPDATE ...
// RETURNING), which is upstream's rule too. An advisory lock per key
// serialises concurrent writers, so the version read here is the one this
// write replaces.
func (a *API) writeRow(ctx context.Context, tx pgx.Tx, w write, r objectRow) (rowResult, error) {
	res := rowResult{id: r.id}
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 29))`, w.bucket+"/"+w.key); err != nil {
		return res, err
	}
	if !w.upsert {
		_, err := tx.Exec(ctx, `INSERT INTO storage.objects (id, bucket_id, name, owner, owner_id, metadata, user_metadata, version)
			VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, $8)`,
			r.id, w.bucket, w.key, ownerUUID(w.owner), w.owner, string(r.metadata), string(r.userMeta), r.version)
		return res, err
	}
	var old *string
	err := tx.QueryRow(ctx, `SELECT version FROM storage.objects WHERE bucket_id = $1 AND name = $2`, w.bucket, w.key).Scan(&old)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return res, err
	}
	if old != nil {
		res.oldVersion = *old
	}
	err = tx.QueryRow(ctx, `INSERT INTO storage.objects (id, bucket_id, name, owner, owner_id, metadata, user_metadata, version)
		VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, $8)
		ON CONFLICT (bucket_id, name) DO UPDATE SET owner = excluded.owner, owner_id = excluded.owner_id,
		  metadata = excluded.metadata, user_metadata = excluded.user_metadata, version = excluded.version,
		  last_accessed_at = now()
		RETURNING id::text`,
		r.id, w.bucket, w.key, ownerUUID(w.owner), w.owner, string(r.metadata), string(r.userMeta), r.version).Scan(&res.id)
	return res, err
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
