package storage

import (
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

type moveBody struct {
	BucketID          string         `json:"bucketId"`
	SourceKey         string         `json:"sourceKey"`
	DestinationKey    string         `json:"destinationKey"`
	DestinationBucket string         `json:"destinationBucket"`
	CopyMetadata      *bool          `json:"copyMetadata"`
	Metadata          map[string]any `json:"metadata"`
}

func (b *moveBody) check(utf8Keys bool) error {
	if b.BucketID == "" || b.SourceKey == "" || b.DestinationKey == "" {
		return errInvalid("bucketId, sourceKey and destinationKey are required")
	}
	if b.DestinationBucket == "" {
		b.DestinationBucket = b.BucketID
	}
	if !validKey(b.DestinationKey, utf8Keys) {
		return errInvalidKey(b.DestinationKey)
	}
	return nil
}

// move renames an object, across buckets too: a SELECT of the source and
// an UPDATE whose new row must pass the UPDATE policy's WITH CHECK, both
// as the caller (upstream's rule: SELECT + UPDATE). The bytes stay where
// they are: blobs are named by version, not by bucket or key.
func (a *API) move(c *echo.Context) error {
	who, b, err := a.moveRequest(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var id string
	err = a.tx(ctx, who, "storage.object.move", false, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT id::text FROM storage.objects WHERE bucket_id = $1 AND name = $2`,
			b.BucketID, b.SourceKey).Scan(&id); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE storage.objects SET bucket_id = $3, name = $4, last_accessed_at = now()
			WHERE bucket_id = $1 AND name = $2`, b.BucketID, b.SourceKey, b.DestinationBucket, b.DestinationKey)
		if err == nil && tag.RowsAffected() == 0 {
			return errRLS("UPDATE", nil)
		}
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errObjectNotFound()
	}
	if err != nil {
		return pgErr("UPDATE", err)
	}
	return c.JSON(http.StatusOK, map[string]string{"message": "Successfully moved", "Id": id,
		"Key": b.DestinationBucket + "/" + b.DestinationKey})
}

// remove deletes up to 1,000 keys with DELETE ... RETURNING (so DELETE
// and SELECT policies apply); keys the caller cannot see are skipped, as
// upstream does.
func (a *API) remove(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body struct {
		Prefixes []string `json:"prefixes"`
	}
	if err := readJSON(c, &body); err != nil {
		return err
	}
	if len(body.Prefixes) == 0 || len(body.Prefixes) > 1000 {
		return errInvalid("prefixes must list 1 to 1000 keys")
	}
	ctx, bucket := c.Request().Context(), param(c, "bucket")
	var out []map[string]any
	var versions []string
	err = a.tx(ctx, who, "storage.object.delete_many", false, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `DELETE FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2) RETURNING `+objectCols,
			bucket, body.Prefixes)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			o, err := scanObject(rows)
			if err != nil {
				return err
			}
			versions = append(versions, o.Version)
			out = append(out, objectJSON(o))
		}
		return rows.Err()
	})
	if err != nil {
		return pgErr("DELETE", err)
	}
	a.deleteBlobs(versions...)
	if out == nil {
		out = []map[string]any{}
	}
	return c.JSON(http.StatusOK, out)
}

// objectJSON is a storage.objects row as upstream returns it (RETURNING *).
func objectJSON(o *object) map[string]any {
	return map[string]any{"id": o.ID, "bucket_id": o.Bucket, "name": o.Name, "version": o.Version,
		"metadata": o.Meta, "user_metadata": o.UserMeta, "created_at": isoPtr(o.Created),
		"updated_at": isoPtr(o.Updated), "last_accessed_at": isoPtr(o.Accessed)}
}

// moveRequest is what move and copy share before their transactions: the
// caller, the body with its keys checked, and the destination bucket's
// limits (which also refuse a missing bucket).
func (a *API) moveRequest(c *echo.Context) (*caller, moveBody, error) {
	var b moveBody
	who, err := a.authenticate(c)
	if err != nil {
		return nil, b, err
	}
	if err := readJSON(c, &b); err != nil {
		return nil, b, err
	}
	if err := b.check(a.cfg.UTF8Keys); err != nil {
		return nil, b, err
	}
	if _, err := a.limits(c.Request().Context(), c, b.DestinationBucket); err != nil {
		return nil, b, err
	}
	return who, b, nil
}
