package auth

import (
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

type logoutScope string

const (
	scopeGlobal logoutScope = "global"
	scopeLocal  logoutScope = "local"
	scopeOthers logoutScope = "others"
)

// logout handles POST /logout?scope=global|local|others (global when
// absent). Sessions are deleted, and their refresh tokens with them, so
// the access tokens still in circulation fail GET /user with
// session_not_found and cannot be refreshed.
func (a *API) logout(c *echo.Context) error {
	scope := logoutScope(c.QueryParam("scope"))
	switch scope {
	case "":
		scope = scopeGlobal
	case scopeGlobal, scopeLocal, scopeOthers:
	default:
		return badRequest(codeValidationFailed, "Unsupported logout scope %q", string(scope))
	}
	p, err := a.authenticate(c)
	if err != nil {
		return err
	}
	if p.sessionID == "" && scope != scopeGlobal {
		// A token without a session has nothing local to end.
		return c.NoContent(http.StatusNoContent)
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	err = a.tx(ctx, func(tx pgx.Tx) error {
		if err := deleteSessions(ctx, tx, p.user.ID, scope, p.sessionID); err != nil {
			return err
		}
		e := a.audit(p.user, actionLogout, logAccount, cl)
		e.Traits = map[string]any{"scope": string(scope)}
		return insertAudit(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
