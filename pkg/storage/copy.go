package storage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// copy duplicates an object, across buckets too: SELECT on the source,
// INSERT on the destination (plus UPDATE and SELECT with x-upsert), as the
// caller. The bytes are copied to a new version before the row commits.
func (a *API) copy(c *echo.Context) error {
	who, b, err := a.moveRequest(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var src *object
	err = a.tx(ctx, who, "storage.object.copy", true, func(tx pgx.Tx) error {
		src, err = scanObject(tx.QueryRow(ctx, `SELECT `+objectCols+` FROM storage.objects WHERE bucket_id = $1 AND name = $2`,
			b.BucketID, b.SourceKey))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errObjectNotFound()
	}
	if err != nil {
		return pgErr("SELECT", err)
	}
	userMeta, err := copyMetadata(c, b, src)
	if err != nil {
		return err
	}
	w := write{who: who, bucket: b.DestinationBucket, key: b.DestinationKey, owner: who.sub,
		upsert: c.Request().Header.Get("X-Upsert") == "true", op: "storage.object.copy"}
	meta, _ := json.Marshal(src.Meta)
	row := objectRow{id: newUUID(), version: newUUID(), metadata: meta, userMeta: userMeta}
	if err := a.be.Copy(ctx, src.Version, row.version); err != nil {
		return pgErr("copy", err)
	}
	var res rowResult
	err = a.tx(ctx, who, w.op, false, func(tx pgx.Tx) error {
		res, err = a.writeRow(ctx, tx, w, row)
		return err
	})
	if err != nil {
		_ = a.be.Delete(context.Background(), row.version)
		return a.writeErr(err, w)
	}
	a.deleteBlobs(res.oldVersion)
	return c.JSON(http.StatusOK, map[string]any{"Id": res.id, "Key": w.bucket + "/" + w.key, "id": res.id,
		"bucket_id": w.bucket, "name": w.key, "version": row.version, "metadata": src.Meta,
		"user_metadata": json.RawMessage(userMeta)})
}

// copyMetadata picks the copy's user metadata: the source's unless
// copyMetadata is false, or what the body or x-metadata header sets.
func copyMetadata(c *echo.Context, b moveBody, src *object) ([]byte, error) {
	if b.Metadata != nil {
		return json.Marshal(b.Metadata)
	}
	if x := c.Request().Header.Get("X-Metadata"); x != "" {
		raw, err := base64.StdEncoding.DecodeString(x)
		if err != nil || !isJSONObject(raw) {
			return nil, errInvalid("x-metadata must be a base64-encoded JSON object")
		}
		return raw, nil
	}
	if b.CopyMetadata != nil && !*b.CopyMetadata {
		return []byte("{}"), nil
	}
	if len(src.UserMeta) == 0 {
		return []byte("{}"), nil
	}
	return src.UserMeta, nil
}
