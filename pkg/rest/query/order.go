package query

// order= and the page of a level: its ORDER BY (related orders on to-one
// embeds read the embed's row; on a spread, its lifted column) and
// LIMIT/OFFSET.

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/rest/pgrst"
)

func (b *Builder) orderSQL(l *level) (string, error) {
	var parts []string
	for _, t := range l.node.Order {
		var expr string
		if t.Relation != "" {
			e := l.embed(t.Relation)
			if e == nil {
				return "", pgrst.NotEmbedded(t.Relation)
			}
			if !e.single {
				err := apierr.New(http.StatusBadRequest, pgrst.CodeRelatedOrder, "A related order on '%s' is not possible", t.Relation)
				err.Details = fmt.Sprintf("'%s' and '%s' do not form a many-to-one or one-to-one relationship", l.t.Name, t.Relation)
				return "", err
			}
			ref, err := b.spreadOrderRef(l, e, t.Field)
			if err != nil {
				return "", err
			}
			expr = ref
			if expr == "" {
				fe, _, _, err := b.fieldExpr(e.lvl, t.Field)
				if err != nil {
					return "", err
				}
				expr = "(SELECT " + fe + " FROM " + fromItem(l.alias, e) + " WHERE " + joinCond(l.alias, e) + ")"
			}
		} else {
			fe, _, _, err := b.fieldExpr(l, t.Field)
			if err != nil {
				return "", err
			}
			expr = fe
		}
		if t.Desc {
			expr += " DESC"
		} else {
			expr += " ASC"
		}
		switch t.Nulls {
		case "first":
			expr += " NULLS FIRST"
		case "last":
			expr += " NULLS LAST"
		}
		parts = append(parts, expr)
	}
	if len(parts) == 0 {
		return "", nil
	}
	return " ORDER BY " + strings.Join(parts, ", "), nil
}

func pageSQL(limit, offset *int64) string {
	s := ""
	if limit != nil {
		s += " LIMIT " + strconv.FormatInt(*limit, 10)
	}
	if offset != nil && *offset > 0 {
		s += " OFFSET " + strconv.FormatInt(*offset, 10)
	}
	return s
}
