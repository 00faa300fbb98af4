package auth

import (
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// adminListFactors handles GET /admin/users/{id}/factors
// (auth.admin.mfa.listFactors): the user's factors, verified or not.
func (a *API) adminListFactors(c *echo.Context) error {
	if _, err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c)
	if err != nil {
		return err
	}
	fs := u.Factors
	if fs == nil {
		fs = []factor{}
	}
	return c.JSON(http.StatusOK, fs)
}

// adminDeleteFactor handles DELETE /admin/users/{id}/factors/{factor_id}
// (auth.admin.mfa.deleteFactor), for a member who lost their phone: the
// factor goes whatever its status, and the sessions it raised drop to
// aal1. It answers with the deleted factor, as GoTrue does.
func (a *API) adminDeleteFactor(c *echo.Context) error {
	act, err := a.requireAdmin(c)
	if err != nil {
		return err
	}
	u, err := a.adminUser(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	f, err := a.loadFactor(c, u.ID)
	if err != nil {
		return err
	}
	cl := clientOf(c)
	err = a.tx(ctx, func(tx pgx.Tx) error {
		if err := deleteFactor(ctx, tx, f, a.now()); err != nil {
			return err
		}
		e := a.adminAudit(act, actionFactorDeleted, u, cl)
		e.LogType = logFactor
		e.Traits = map[string]any{"user_id": u.ID, "factor_id": f.ID}
		return insertAudit(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, f)
}
