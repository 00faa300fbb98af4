package storage

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

type listV2Body struct {
	Prefix        string `json:"prefix"`
	Limit         *int   `json:"limit"`
	Cursor        string `json:"cursor"`
	WithDelimiter bool   `json:"with_delimiter"`
	SortBy        struct {
		Column string `json:"column"`
		Order  string `json:"order"`
	} `json:"sortBy"`
}

// v2Cursor is the opaque cursor: the last entry's sort value and name, so
// the next page starts after it (keyset pagination, stable under inserts).
type v2Cursor struct {
	At   *time.Time `json:"t,omitempty"`
	Name string     `json:"n"`
}

type v2Object struct {
	Name      string          `json:"name"`
	ID        string          `json:"id"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt *isoTime        `json:"created_at"`
	UpdatedAt *isoTime        `json:"updated_at"`
	Accessed  *isoTime        `json:"last_accessed_at"`
}

type v2Folder struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// listV2 lists keys under prefix in pages; with_delimiter folds the keys
// below the next "/" into one folder entry. Folders sort by their name
// and, for a timestamp sort, by their newest object's timestamp.
func (a *API) listV2(c *echo.Context) error {
	who, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var body listV2Body
	if err := readJSON(c, &body); err != nil {
		return err
	}
	limit := 1000
	if body.Limit != nil {
		limit = *body.Limit
	}
	if limit < 1 || limit > 1000 {
		return errInvalid("limit must be between 1 and 1000")
	}
	col := "name"
	if body.SortBy.Column == "created_at" || body.SortBy.Column == "updated_at" {
		col = body.SortBy.Column
	}
	dir := sortDir(body.SortBy.Order)
	var cur v2Cursor
	if body.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(body.Cursor)
		if err != nil || json.Unmarshal(raw, &cur) != nil {
			return errInvalid("invalid cursor")
		}
	}
	sql := listV2SQL(col, dir)
	ctx := c.Request().Context()
	var got []v2Entry
	err = a.tx(ctx, who, "storage.object.list", true, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, sql, param(c, "bucket"), likeEscape(body.Prefix)+"%", utf8.RuneCountInString(body.Prefix)+1,
			body.WithDelimiter, limit+1, cur.Name, cur.At, body.Prefix)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e v2Entry
			if err := rows.Scan(&e.name, &e.folder, &e.at, &e.id, &e.meta, &e.cr, &e.up, &e.ac); err != nil {
				return err
			}
			got = append(got, e)
		}
		return rows.Err()
	})
	if err != nil {
		return pgErr("SELECT", err)
	}
	return c.JSON(http.StatusOK, shapeV2(got, limit))
}

// listV2SQL builds list v2's statement for a sort column and direction
// (both from allow-lists): entries are objects, or with the delimiter the
// folders one level below the prefix, paged by keyset on (sort value,
// name).
func listV2SQL(col, dir string) string {
	cmp := ">"
	if dir == "DESC" {
		cmp = "<"
	}
	sortExpr, keyset := `NULL::timestamptz`, `($6 = '' OR entry COLLATE "C" `+cmp+` $6) AND ($7::timestamptz IS NULL OR true)`
	if col != "name" {
		sortExpr = `max(` + col + `)`
		keyset = `($6 = '' OR (at, entry COLLATE "C") ` + cmp + ` ($7::timestamptz, $6::text COLLATE "C"))`
	}
	return `WITH x AS (
	  SELECT o.*, ($4 AND strpos(substr(o.name, $3), '/') > 0) AS folder
	    FROM storage.objects o WHERE o.bucket_id = $1 AND o.name COLLATE "C" LIKE $2
	), e AS (
	  SELECT CASE WHEN folder THEN $8 || split_part(substr(name, $3), '/', 1) ELSE name END AS entry, folder,
	         ` + sortExpr + ` AS at, min(id::text) AS id, min(metadata::text) AS metadata,
	         min(created_at) AS created_at, max(updated_at) AS updated_at, max(last_accessed_at) AS last_accessed_at
	    FROM x GROUP BY 1, 2
	)
	SELECT entry, folder, at, id, metadata, created_at, updated_at, last_accessed_at FROM e
	 WHERE ` + keyset + `
	 ORDER BY at ` + dir + `, entry COLLATE "C" ` + dir + ` LIMIT $5`
}

// v2Entry is one row of list v2's statement.
type v2Entry struct {
	name     string
	folder   bool
	at       *time.Time
	id, meta *string
	cr, up   *time.Time
	ac       *time.Time
}

// shapeV2 turns up to limit+1 rows into list v2's answer; the extra row
// only says there is a next page, whose cursor is the last entry shown.
func shapeV2(got []v2Entry, limit int) map[string]any {
	res := map[string]any{"hasNext": len(got) > limit}
	if len(got) > limit {
		got = got[:limit]
		last := got[len(got)-1]
		raw, _ := json.Marshal(v2Cursor{At: last.at, Name: last.name})
		res["nextCursor"] = base64.RawURLEncoding.EncodeToString(raw)
	}
	folders, objects := []v2Folder{}, []v2Object{}
	for _, e := range got {
		if e.folder {
			folders = append(folders, v2Folder{Key: e.name, Name: e.name + "/"})
			continue
		}
		o := v2Object{Name: e.name, CreatedAt: isoPtr(e.cr), UpdatedAt: isoPtr(e.up), Accessed: isoPtr(e.ac), Metadata: json.RawMessage("{}")}
		if e.id != nil {
			o.ID = *e.id
		}
		if e.meta != nil {
			o.Metadata = json.RawMessage(*e.meta)
		}
		objects = append(objects, o)
	}
	res["folders"], res["objects"] = folders, objects
	return res
}
