package storage

import (
	"context"
	"errors"
	"net/http"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ownerUUID is the owner column's value: the subject when it is a UUID
// (a user), NULL otherwise (API keys have no sub), as upstream does.
func ownerUUID(sub string) *string {
	if uuidRE.MatchString(sub) {
		return &sub
	}
	return nil
}

func (a *API) updateBucket(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body bucketBody
	if err := readJSON(c, &body); err != nil {
		return err
	}
	limit, err := parseLimit(body.FileSizeLimit)
	if err != nil {
		return err
	}
	mimes, err := parseMimes(body.AllowedMimeTypes)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var id string
	err = a.tx(ctx, who, "storage.bucket.update", false, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `UPDATE storage.buckets SET
			public = coalesce($2, public),
			file_size_limit = CASE WHEN $3 THEN $4 ELSE file_size_limit END,
			allowed_mime_types = CASE WHEN $5 THEN $6 ELSE allowed_mime_types END,
			updated_at = now()
			WHERE id = $1 RETURNING id`,
			param(c, "id"), body.Public, len(body.FileSizeLimit) > 0, limit, len(body.AllowedMimeTypes) > 0, mimes).Scan(&id)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errBucketNotFound()
	}
	if err != nil {
		return pgErr("UPDATE", err)
	}
	return c.JSON(http.StatusOK, map[string]string{"message": "Successfully updated"})
}

// bucketVisible says whether the caller can see the bucket (SELECT on
// storage.buckets).
func (a *API) bucketVisible(ctx context.Context, who *caller, op, id string) error {
	err := a.tx(ctx, who, op, true, func(tx pgx.Tx) error {
		var x string
		return tx.QueryRow(ctx, `SELECT id FROM storage.buckets WHERE id = $1`, id).Scan(&x)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errBucketNotFound()
	}
	if err != nil {
		return pgErr("SELECT", err)
	}
	return nil
}

// emptyBucket removes every object of a bucket the caller can see. Upstream
// queues it; here it runs before the answer (so a deleteBucket right after
// succeeds, as storage-js's tests expect), with upstream's words.
func (a *API) emptyBucket(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	ctx, id := c.Request().Context(), param(c, "id")
	if err := a.bucketVisible(ctx, who, "storage.bucket.empty", id); err != nil {
		return err
	}
	var versions []string
	err = a.tx(ctx, a.serviceCaller(c), "storage.bucket.empty", false, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM storage.objects WHERE bucket_id = $1 RETURNING coalesce(version, '')`, id)
		if err != nil {
			return err
		}
		versions, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return pgErr("DELETE", err)
	}
	a.deleteBlobs(versions...)
	return c.JSON(http.StatusOK, map[string]string{"message": "Empty bucket has been queued. Completion may take up to an hour."})
}

func (a *API) deleteBucket(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	ctx, id := c.Request().Context(), param(c, "id")
	if err := a.bucketVisible(ctx, who, "storage.bucket.delete", id); err != nil {
		return err
	}
	var n int
	err = a.tx(ctx, a.serviceCaller(c), "storage.bucket.delete", true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM storage.objects WHERE bucket_id = $1 LIMIT 1) x`, id).Scan(&n)
	})
	if err != nil {
		return pgErr("SELECT", err)
	}
	if n > 0 {
		return errNotEmpty()
	}
	err = a.tx(ctx, who, "storage.bucket.delete", false, func(tx pgx.Tx) error {
		var x string
		return tx.QueryRow(ctx, `DELETE FROM storage.buckets WHERE id = $1 RETURNING id`, id).Scan(&x)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errRLS("DELETE", err)
	}
	if err != nil {
		return pgErr("DELETE", err)
	}
	return c.JSON(http.StatusOK, map[string]string{"message": "Successfully deleted"})
}

// deleteBlobs removes replaced or deleted versions after their rows are
// gone. A failure only leaves a blob no row names, which the sweep
// removes later, so it is logged, not reported.
func (a *API) deleteBlobs(versions ...string) {
	var vs []string
	for _, v := range versions {
		if v != "" {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return
	}
	if err := a.be.Delete(context.Background(), vs...); err != nil {
		a.log.Warn("storage: deleting replaced blobs; the sweep will retry", "err", err)
	}
}
