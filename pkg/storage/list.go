package storage

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// listBody is list v1's request.
type listBody struct {
	Prefix string `json:"prefix"`
	Limit  *int   `json:"limit"`
	Offset int    `json:"offset"`
	SortBy struct {
		Column string `json:"column"`
		Order  string `json:"order"`
	} `json:"sortBy"`
	Search string `json:"search"`
}

// listEntry is one name of a list v1 answer: a file, or a folder (id,
// timestamps and metadata null).
type listEntry struct {
	Name      string          `json:"name"`
	ID        *string         `json:"id"`
	UpdatedAt *isoTime        `json:"updated_at"`
	CreatedAt *isoTime        `json:"created_at"`
	Accessed  *isoTime        `json:"last_accessed_at"`
	Metadata  json.RawMessage `json:"metadata"`
}

var listSortColumns = map[string]string{"name": "name", "updated_at": "updated_at", "created_at": "created_at",
	"last_accessed_at": "last_accessed_at"}

func sortDir(s string) string {
	if strings.EqualFold(s, "desc") {
		return "DESC"
	}
	return "ASC"
}

// list is list v1 (upstream's storage.search): the names one level below
// prefix, folders first among equals, under RLS (SELECT). The prefix is
// taken as a folder, so "testpath" lists "testpath/...".
func (a *API) list(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body listBody
	if err := readJSON(c, &body); err != nil {
		return err
	}
	limit := 100
	if body.Limit != nil {
		limit = *body.Limit
	}
	if limit < 1 || limit > 10000 || body.Offset < 0 {
		return errInvalid("limit must be between 1 and 10000 and offset not negative")
	}
	col, ok := listSortColumns[body.SortBy.Column]
	if !ok {
		col = "name"
	}
	prefix := body.Prefix
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	order := col + ` ` + sortDir(body.SortBy.Order)
	if col == "name" {
		order = `name COLLATE "C" ` + sortDir(body.SortBy.Order)
	}
	sql := `WITH x AS (
	  SELECT split_part(substr(o.name, $3), '/', 1) AS seg, strpos(substr(o.name, $3), '/') > 0 AS folder,
	         o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata
	    FROM storage.objects o
	   WHERE o.bucket_id = $1 AND o.name COLLATE "C" LIKE $2
	), e AS (
	  SELECT DISTINCT ON (seg, folder) seg AS name, folder,
	         CASE WHEN folder THEN NULL ELSE id END AS id,
	         CASE WHEN folder THEN NULL ELSE updated_at END AS updated_at,
	         CASE WHEN folder THEN NULL ELSE created_at END AS created_at,
	         CASE WHEN folder THEN NULL ELSE last_accessed_at END AS last_accessed_at,
	         CASE WHEN folder THEN NULL ELSE coalesce(metadata, '{}') END AS metadata
	    FROM x WHERE seg <> '' AND ($4 = '' OR seg ILIKE $4 || '%')
	   ORDER BY seg, folder DESC
	)
	SELECT name, id::text, updated_at, created_at, last_accessed_at, metadata FROM e
	 ORDER BY ` + order + `, folder DESC LIMIT $5 OFFSET $6`
	ctx := c.Request().Context()
	out := []listEntry{}
	err = a.tx(ctx, who, "storage.object.list", true, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, param(c, "bucket"), likeEscape(prefix)+"%", utf8.RuneCountInString(prefix)+1,
			likeEscape(body.Search), limit, body.Offset)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e listEntry
			var up, cr, ac *time.Time
			var meta []byte
			if err := rows.Scan(&e.Name, &e.ID, &up, &cr, &ac, &meta); err != nil {
				return err
			}
			e.UpdatedAt, e.CreatedAt, e.Accessed = isoPtr(up), isoPtr(cr), isoPtr(ac)
			if meta != nil {
				e.Metadata = meta
			} else {
				e.Metadata = json.RawMessage("null")
			}
			out = append(out, e)
		}
		return rows.Err()
	})
	if err != nil {
		return pgErr("SELECT", err)
	}
	return c.JSON(http.StatusOK, out)
}
