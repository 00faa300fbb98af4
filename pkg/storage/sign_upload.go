package storage

import (
	"errors"
	"net/http"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// signUpload hands out an upload URL after the same permission probe an
// upload runs (INSERT, or INSERT + UPDATE + SELECT with x-upsert), so the
// URL carries exactly the caller's right to write that key.
func (a *API) signUpload(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	w := write{who: who, bucket: param(c, "bucket"), key: param(c, "*"), owner: who.sub,
		upsert: c.Request().Header.Get("X-Upsert") == "true", op: "storage.object.sign_upload_url"}
	if !validKey(w.key, a.cfg.UTF8Keys) {
		return errInvalidKey(w.key)
	}
	if _, err := a.limits(ctx, c, w.bucket); err != nil {
		return err
	}
	probe := w.row("00000000-0000-0000-0000-000000000000", "probe", nil, &uploadBody{mimetype: "application/octet-stream"})
	err = a.tx(ctx, who, w.op, false, func(tx pgx.Tx) error {
		if _, err := a.writeRow(ctx, tx, w, probe); err != nil {
			return err
		}
		return errProbe
	})
	if err != nil && !errors.Is(err, errProbe) {
		return a.writeErr(err, w)
	}
	now := a.now()
	tok, err := a.signToken(uploadClaims{URL: w.bucket + "/" + w.key, Owner: who.sub, Upsert: w.upsert, Scope: "upload",
		RegisteredClaims: jwt.RegisteredClaims{IssuedAt: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(a.cfg.UploadURLExpiry))}})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{
		"url": "/object/upload/sign/" + escapePath(w.bucket+"/"+w.key) + "?token=" + tok, "token": tok})
}

// uploadSigned writes through a signed upload URL: no caller, the token
// decides key, owner and upsert (an x-upsert header is ignored), and the
// row is written as service_role, as upstream writes it as superuser.
func (a *API) uploadSigned(c *echo.Context) error {
	var cl uploadClaims
	if err := a.parseSigned(c.QueryParam("token"), &cl); err != nil {
		return err
	}
	bucket, key := param(c, "bucket"), param(c, "*")
	if cl.Scope != "upload" || cl.URL != bucket+"/"+key {
		return errSignedToken("InvalidSignature", "Invalid signature")
	}
	w := write{who: a.serviceCaller(c), bucket: bucket, key: key, owner: cl.Owner, upsert: cl.Upsert,
		op: "storage.object.upload_signed"}
	id, err := a.store(c, w)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"Id": id, "Key": bucket + "/" + key})
}
