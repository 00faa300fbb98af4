package rest

// Request bodies: size limit, content types, and the JSON shapes writes take.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
	"github.com/labelbase/labelbase/pkg/rest/query"
	"github.com/labstack/echo/v5"
)

// readBody reads at most MaxBodyBytes, as JSON.
func (a *API) readBody(c *echo.Context) ([]byte, error) {
	return a.readBodyAs(c, mediaType(c.Request()))
}

// mediaType is the request's Content-Type without its parameters.
func mediaType(r *http.Request) string {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return ct
}

// readBodyAs is readBody for a caller that has already read the media
// type ct off the request.
func (a *API) readBodyAs(c *echo.Context, ct string) ([]byte, error) {
	body, err := a.readRawBody(c)
	if err != nil {
		return nil, err
	}
	switch ct {
	case "", "application/json", "application/vnd.pgrst.object+json", "application/vnd.pgrst.object", "text/plain":
		return body, nil
	case "text/csv":
		return csvToJSON(body)
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, invalidBody()
		}
		m := map[string]string{}
		for k, v := range vals {
			m[k] = v[len(v)-1]
		}
		return json.Marshal(m)
	}
	if strings.HasSuffix(ct, "+json") {
		return body, nil
	}
	return nil, apierr.New(http.StatusUnsupportedMediaType, pgrst.CodeMediaType, "Content-Type not acceptable: %s", ct)
}

// readRawBody reads the body as sent, at most MaxBodyBytes. A body whose
// Content-Length is within the limit (every supabase-js request) is read
// into a buffer of exactly its size: net/http stops it at that length, so
// neither the limit's reader nor io.ReadAll's growing buffer is needed.
// Zero is left to io.ReadAll: a request built in process (not parsed off
// the wire) says 0 for a body of unknown length.
func (a *API) readRawBody(c *echo.Context) ([]byte, error) {
	r := c.Request()
	if n := r.ContentLength; n > 0 && n <= a.cfg.MaxBodyBytes {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, pgrst.Body("Could not read the request body").WithCause(err)
		}
		return body, nil
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, a.cfg.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, apierr.New(http.StatusRequestEntityTooLarge, pgrst.CodeBody, "Request body exceeds the limit of %d bytes", a.cfg.MaxBodyBytes)
		}
		return nil, pgrst.Body("Could not read the request body").WithCause(err)
	}
	return body, nil
}

func invalidBody() *apierr.Error { return pgrst.InvalidBody() }

// decodeRows reads a JSON object or array of objects.
func decodeRows(body []byte) ([]map[string]json.RawMessage, bool, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, false, invalidBody()
	}
	if trimmed[0] == '[' {
		var rows []map[string]json.RawMessage
		if err := json.Unmarshal(trimmed, &rows); err != nil {
			return nil, true, invalidBody()
		}
		for _, r := range rows {
			if r == nil {
				return nil, true, invalidBody()
			}
		}
		return rows, true, nil
	}
	var row map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &row); err != nil || row == nil {
		return nil, false, invalidBody()
	}
	return []map[string]json.RawMessage{row}, false, nil
}

func sortedKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// insertGroups turns an insert body into the one group of rows PostgREST
// inserts: the columns are ?columns= when given, else the keys every row
// must share. With Prefer: missing=default the rows' absent columns take
// their defaults, computed for every row in body order as PostgREST does
// (so a serial column's sequence advances once per row even where the row
// names the column).
func insertGroups(rows []map[string]json.RawMessage, isArray bool, body []byte, columns []string, missingDefault bool) ([]query.InsertGroup, error) {
	var cols []string
	if columns != nil {
		cols = columns
	} else if len(rows) > 0 {
		cols = sortedKeys(rows[0])
		for _, r := range rows[1:] {
			if len(r) != len(cols) {
				return nil, pgrst.Body("All object keys must match")
			}
			for _, c := range cols {
				if _, ok := r[c]; !ok {
					return nil, pgrst.Body("All object keys must match")
				}
			}
		}
	}
	b := bytes.TrimSpace(body)
	if !isArray {
		b = append(append([]byte{'['}, b...), ']')
	}
	g := query.InsertGroup{Columns: cols, Body: string(b), Defaults: missingDefault}
	if len(rows) == 1 {
		g.Row = rows[0]
	}
	return []query.InsertGroup{g}, nil
}
