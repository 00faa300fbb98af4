package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"
)

// decodeBody reads the JSON body into dst. An empty body counts as {} so a
// bodiless request fails validation (400 validation_failed) rather than
// parsing; anything that is not one JSON object is bad_json. Content-Type is
// not checked: supabase-js sends "application/json;charset=UTF-8" and
// other clients are less careful.
func (a *API) decodeBody(c *echo.Context, dst any) error {
	r := c.Request()
	if r.Body == nil {
		return nil
	}
	limit := a.cfg.MaxBodyBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return badRequest(codeValidationFailed, "Could not read request body").WithCause(err)
	}
	if int64(len(b)) > limit {
		return newError(http.StatusRequestEntityTooLarge, codeRequestTooLarge, "Request body too large")
	}
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	if b[0] != '{' {
		return errBadJSON(errors.New("body must be a JSON object"))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return errBadJSON(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errBadJSON(errors.New("unexpected data after the JSON object"))
	}
	return nil
}

// bearerToken returns the token of an "Authorization: Bearer ..." header,
// or "" when there is none.
func bearerToken(r *http.Request) string {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}
