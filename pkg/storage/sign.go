package storage

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// downloadClaims are a signed download URL's token, as upstream makes
// them: the object ("bucket/key") and, for a signed render, the
// transformation. They are HS256 with STORAGE_URL_SIGNING_KEY, so rotating
// that key revokes every URL handed out.
type downloadClaims struct {
	URL             string `json:"url"`
	Transformations string `json:"transformations,omitempty"`
	// Scope is empty for downloads; an upload token ("upload") is refused
	// here, so one URL cannot serve as the other.
	Scope string `json:"scope,omitempty"`
	jwt.RegisteredClaims
}

// uploadClaims are a signed upload URL's token.
type uploadClaims struct {
	URL    string `json:"url"`
	Owner  string `json:"owner,omitempty"`
	Upsert bool   `json:"upsert"`
	Scope  string `json:"scope"`
	jwt.RegisteredClaims
}

func (a *API) signToken(claims jwt.Claims) (string, error) {
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(a.cfg.URLSigningKey))
}

// parseSigned verifies a URL token with the signing key alone (HS256);
// the error wording follows upstream's.
func (a *API) parseSigned(raw string, claims jwt.Claims) error {
	if raw == "" {
		return errSignedToken("InvalidJWT", "Invalid Compact JWS")
	}
	_, err := jwt.ParseWithClaims(raw, claims, func(*jwt.Token) (any, error) { return []byte(a.cfg.URLSigningKey), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithTimeFunc(a.now), jwt.WithExpirationRequired())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jwt.ErrTokenExpired):
		return errSignedToken("ExpiredToken", "The provided token has expired.")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return errSignedToken("InvalidSignature", "Invalid signature")
	default:
		return errSignedToken("InvalidJWT", "Invalid Compact JWS").WithCause(err)
	}
}

func (a *API) verifyDownload(raw, bucket, key string) (*downloadClaims, error) {
	var cl downloadClaims
	if err := a.parseSigned(raw, &cl); err != nil {
		return nil, err
	}
	if cl.URL != bucket+"/"+key || cl.Scope != "" {
		return nil, errSignedToken("InvalidSignature", "Invalid signature")
	}
	return &cl, nil
}

type signBody struct {
	ExpiresIn int            `json:"expiresIn"`
	Paths     []string       `json:"paths"`
	Transform map[string]any `json:"transform"`
}

// visible says whether the caller may read the object (SELECT under
// RLS): signing needs what a download needs.
func (a *API) visible(c *echo.Context, who *caller, op, bucket, key string) (bool, error) {
	ctx := c.Request().Context()
	var n int
	err := a.tx(ctx, who, op, true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT count(*) FROM storage.objects WHERE bucket_id = $1 AND name = $2`, bucket, key).Scan(&n)
	})
	if err != nil {
		return false, pgErr("SELECT", err)
	}
	return n > 0, nil
}

func (a *API) signedPath(bucket, key string, expiresIn int, transform map[string]any) (string, error) {
	now := a.now()
	cl := downloadClaims{URL: bucket + "/" + key, RegisteredClaims: jwt.RegisteredClaims{
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Duration(expiresIn) * time.Second))}}
	route := "/object/sign/"
	if len(transform) > 0 {
		cl.Transformations = transformString(transform)
		route = "/render/image/sign/"
	}
	tok, err := a.signToken(cl)
	if err != nil {
		return "", err
	}
	return route + escapePath(bucket+"/"+key) + "?token=" + tok, nil
}

func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}

func (a *API) sign(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body signBody
	if err := readJSON(c, &body); err != nil {
		return err
	}
	if body.ExpiresIn < 1 {
		return errInvalid("expiresIn must be at least 1")
	}
	bucket, key := param(c, "bucket"), param(c, "*")
	ok, err := a.visible(c, who, "storage.object.sign", bucket, key)
	if err != nil {
		return err
	}
	if !ok {
		return errObjectNotFound()
	}
	p, err := a.signedPath(bucket, key, body.ExpiresIn, body.Transform)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"signedURL": p})
}

func (a *API) signMany(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body signBody
	if err := readJSON(c, &body); err != nil {
		return err
	}
	if body.ExpiresIn < 1 || len(body.Paths) == 0 || len(body.Paths) > 1000 {
		return errInvalid("expiresIn must be at least 1 and paths must list 1 to 1000 keys")
	}
	ctx, bucket := c.Request().Context(), param(c, "bucket")
	seen := map[string]bool{}
	err = a.tx(ctx, who, "storage.object.sign", true, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT name FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2)`, bucket, body.Paths)
		if err != nil {
			return err
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, n := range names {
			seen[n] = true
		}
		return err
	})
	if err != nil {
		return pgErr("SELECT", err)
	}
	out := make([]map[string]any, 0, len(body.Paths))
	for _, p := range body.Paths {
		if !seen[p] {
			out = append(out, map[string]any{"error": "Either the object does not exist or you do not have access to it",
				"path": p, "signedURL": nil})
			continue
		}
		s, err := a.signedPath(bucket, p, body.ExpiresIn, nil)
		if err != nil {
			return err
		}
		out = append(out, map[string]any{"error": nil, "path": p, "signedURL": s})
	}
	return c.JSON(http.StatusOK, out)
}
