package rest

// The responses shared by reads, writes and calls: rows with their
// Content-Range, a body in the negotiated representation, and the details
// SQL may set (response.headers and response.status).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

// applyGUCs applies response.headers and response.status set by SQL.
func applyGUCs(h http.Header, res *result, status int) (int, error) {
	if res.headers != "" {
		var list []map[string]any
		if err := json.Unmarshal([]byte(res.headers), &list); err != nil {
			return 0, gucHeadersError()
		}
		for _, m := range list {
			if len(m) != 1 {
				return 0, gucHeadersError()
			}
			for k, v := range m {
				s, ok := v.(string)
				if !ok || !sqlHeaderAllowed(k, s) {
					return 0, gucHeadersError()
				}
				h.Set(k, s)
			}
		}
	}
	if res.status != "" {
		n, err := strconv.Atoi(strings.TrimSpace(res.status))
		if err != nil || n < 100 || n > 599 {
			return 0, apierr.New(http.StatusInternalServerError, pgrst.CodeGUCStatus, "response.status guc must be a valid status code")
		}
		status = n
	}
	return status, nil
}

func gucHeadersError() *apierr.Error {
	return apierr.New(http.StatusInternalServerError, pgrst.CodeGUCHeaders, "response.headers guc must be a JSON array composed of objects with a single key and a string value")
}

// respondRows answers a read: Content-Range, 206/416, and the body in the
// negotiated representation.
func (a *API) respondRows(c *echo.Context, rc *reqCtx, res *result, off int64, write bool) error {
	h := c.Response().Header()
	status := http.StatusOK
	total := "*"
	if res.total != nil {
		total = strconv.FormatInt(*res.total, 10)
		switch {
		case off > *res.total:
			e := pgrst.RangeNotSatisfiable(fmt.Sprintf("An offset of %d was requested, but there are only %d rows.", off, *res.total))
			return e.WithHeader("Content-Range", "*/"+total)
		case res.n < *res.total:
			status = http.StatusPartialContent
		}
	}
	if res.n > 0 {
		h.Set("Content-Range", strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(off+res.n-1, 10)+"/"+total)
	} else {
		h.Set("Content-Range", "*/"+total)
	}
	if pa := rc.prefs.applied(write, rc.set.txOverride()); pa != "" {
		h.Set("Preference-Applied", pa)
	}
	status, err := applyGUCs(h, res, status)
	if err != nil {
		return err
	}
	return a.writeBody(c, rc, status, res)
}

func (a *API) writeBody(c *echo.Context, rc *reqCtx, status int, res *result) error {
	if rc.media == mediaObject {
		if res.n != 1 {
			return singular(res.n)
		}
	}
	if rc.r.Method == http.MethodHead {
		ct := ctJSON
		switch rc.media {
		case mediaCSV:
			ct = ctCSV
		case mediaGeoJSON:
			ct = ctGeoJSON
		}
		c.Response().Header().Set("Content-Type", ct)
		return c.NoContent(status)
	}
	switch rc.media {
	case mediaObject:
		return c.Blob(status, ctObject, unwrapSingle(res.body))
	case mediaCSV:
		return c.Blob(status, ctCSV, res.body)
	case mediaGeoJSON:
		return c.Blob(status, ctGeoJSON, res.body)
	}
	return c.Blob(status, ctJSON, res.body)
}

// singular is PGRST116 (clients parse details to tell 0 rows from many).
func singular(n int64) *apierr.Error { return pgrst.Singular(n) }

// unwrapSingle turns json_agg's one-element array into the element.
func unwrapSingle(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) >= 2 && b[0] == '[' && b[len(b)-1] == ']' {
		return bytes.TrimSpace(b[1 : len(b)-1])
	}
	return b
}
