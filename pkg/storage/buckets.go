package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/config"
)

// isoTime writes a time as JavaScript's toISOString does (milliseconds,
// UTC, "Z"): storage-js's snapshots compare these strings.
type isoTime time.Time

func (t isoTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

func isoPtr(t *time.Time) *isoTime {
	if t == nil {
		return nil
	}
	v := isoTime(*t)
	return &v
}

type bucketRow struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Owner            *string  `json:"owner"`
	Public           bool     `json:"public"`
	Type             *string  `json:"type,omitempty"`
	FileSizeLimit    *int64   `json:"file_size_limit"`
	AllowedMimeTypes []string `json:"allowed_mime_types"`
	CreatedAt        *isoTime `json:"created_at"`
	UpdatedAt        *isoTime `json:"updated_at"`
}

const bucketCols = `id, name, owner::text, coalesce(public, false), type::text, file_size_limit, allowed_mime_types, created_at, updated_at`

func scanBucket(row pgx.Row) (*bucketRow, error) {
	var b bucketRow
	var typ string
	var created, updated *time.Time
	if err := row.Scan(&b.ID, &b.Name, &b.Owner, &b.Public, &typ, &b.FileSizeLimit, &b.AllowedMimeTypes,
		&created, &updated); err != nil {
		return nil, err
	}
	b.Type, b.CreatedAt, b.UpdatedAt = &typ, isoPtr(created), isoPtr(updated)
	return &b, nil
}

// bucketSortColumns is the allow-list of listBuckets' sortColumn.
var bucketSortColumns = map[string]string{"id": "id", "name": "name", "created_at": "created_at", "updated_at": "updated_at"}

func (a *API) listBuckets(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	q := c.Request().URL.Query()
	col, ok := bucketSortColumns[q.Get("sortColumn")]
	if !ok {
		col = "name"
	}
	dir := "ASC"
	if strings.EqualFold(q.Get("sortOrder"), "desc") {
		dir = "DESC"
	}
	limit, offset := queryInt(q.Get("limit"), 1000), queryInt(q.Get("offset"), 0)
	sql := `SELECT ` + bucketCols + ` FROM storage.buckets WHERE ($1 = '' OR name ILIKE '%' || $1 || '%')
		ORDER BY ` + col + ` ` + dir + ` LIMIT $2 OFFSET $3`
	out := []*bucketRow{}
	err = a.tx(c.Request().Context(), who, "storage.bucket.list", true, func(tx pgx.Tx) error {
		rows, err := tx.Query(c.Request().Context(), sql, likeEscape(q.Get("search")), limit, offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			b, err := scanBucket(rows)
			if err != nil {
				return err
			}
			out = append(out, b)
		}
		return rows.Err()
	})
	if err != nil {
		return pgErr("SELECT", err)
	}
	return c.JSON(http.StatusOK, out)
}

func queryInt(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return def
	}
	return n
}

// likeEscape makes a search string match literally inside ILIKE.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func (a *API) getBucket(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var b *bucketRow
	err = a.tx(c.Request().Context(), who, "storage.bucket.get", true, func(tx pgx.Tx) error {
		b, err = scanBucket(tx.QueryRow(c.Request().Context(), `SELECT `+bucketCols+` FROM storage.buckets WHERE id = $1`, param(c, "id")))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errBucketNotFound()
	}
	if err != nil {
		return pgErr("SELECT", err)
	}
	b.Type = nil // getBucket's answer has no type (storage-js's snapshot)
	return c.JSON(http.StatusOK, b)
}

// bucketBody is createBucket's and updateBucket's JSON; raw fields tell an
// absent key (left unchanged on update) from null (cleared).
type bucketBody struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Public           *bool           `json:"public"`
	Type             string          `json:"type"`
	FileSizeLimit    json.RawMessage `json:"file_size_limit"`
	AllowedMimeTypes json.RawMessage `json:"allowed_mime_types"`
}

func readJSON(c *echo.Context, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(c.Response(), c.Request().Body, 1<<20))
	if err := dec.Decode(v); err != nil {
		return errInvalid("body must be a JSON object").WithCause(err)
	}
	return nil
}

// parseLimit reads file_size_limit: null, a number of bytes, or a string
// such as "20mb" in Supabase's decimal units.
func parseLimit(raw json.RawMessage) (*int64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var n int64
	if json.Unmarshal(raw, &n) == nil {
		if n < 0 {
			return nil, errInvalid("file_size_limit must not be negative")
		}
		return &n, nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return nil, errInvalid("file_size_limit must be a number or a size such as 20mb")
	}
	v, err := config.ParseFileSize(s)
	if err != nil {
		return nil, errInvalid(fmt.Sprintf("file_size_limit: %v", err))
	}
	return &v, nil
}

func parseMimes(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var m []string
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errInvalid("allowed_mime_types must be a list of strings")
	}
	for _, t := range m {
		if !strings.Contains(t, "/") && t != "*" {
			return nil, errInvalid("invalid mime type " + t)
		}
	}
	return m, nil
}

func (a *API) createBucket(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body bucketBody
	if err := readJSON(c, &body); err != nil {
		return err
	}
	if body.ID == "" {
		body.ID = body.Name
	}
	if body.Name == "" {
		body.Name = body.ID
	}
	if !validBucketName(body.ID) || !validBucketName(body.Name) {
		return errBucketName()
	}
	limit, err := parseLimit(body.FileSizeLimit)
	if err != nil {
		return err
	}
	mimes, err := parseMimes(body.AllowedMimeTypes)
	if err != nil {
		return err
	}
	typ := strings.ToUpper(body.Type)
	if typ == "" {
		typ = "STANDARD"
	}
	if typ != "STANDARD" {
		return errInvalid("only STANDARD buckets are supported")
	}
	public := body.Public != nil && *body.Public
	err = a.tx(c.Request().Context(), who, "storage.bucket.create", false, func(tx pgx.Tx) error {
		_, err := tx.Exec(c.Request().Context(), `INSERT INTO storage.buckets
			(id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)
			VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7)`,
			body.ID, body.Name, ownerUUID(who.sub), who.sub, public, limit, mimes)
		return err
	})
	if err != nil {
		return pgErr("INSERT", err)
	}
	return c.JSON(http.StatusOK, map[string]string{"name": body.ID})
}
