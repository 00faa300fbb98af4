package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/mail"
)

// GoTrue's invites (POST /invite, auth.admin.inviteUserByEmail): an
// administrator names an address; the user is created unconfirmed with
// invited_at and mailed a link (type invite) that confirms the address and
// signs them in, after which the site asks for a password. Invited users
// need no invite code: the call is an administrator's, like POST
// /admin/users (adminCreateMarker).

const actionUserInvited = "user_invited"

type inviteParams struct {
	Email string         `json:"email"`
	Data  map[string]any `json:"data"`
}

// invite handles POST /invite with a service_role bearer. A user already
// confirmed is GoTrue's 422 email_exists; one invited before and not yet
// confirmed is invited again.
func (a *API) invite(c *echo.Context) error {
	act, err := a.requireAdmin(c)
	if err != nil {
		return err
	}
	var p inviteParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if strings.TrimSpace(p.Email) == "" {
		return badRequest(codeValidationFailed, "An email address is required")
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return err
	}
	if err := checkMetadata(p.Data); err != nil {
		return err
	}
	ctx, err := a.startMailing(c)
	if err != nil {
		return err
	}
	redirect := a.referrer(c, "")
	cl := clientOf(c)
	var u *user
	var t *emailToken
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		var err error
		if u, t, err = a.inviteToken(ctx, tx, email, p.Data, redirect, now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, a.adminAudit(act, actionUserInvited, u, cl))
	})
	if err != nil {
		a.mailUnused(ctx)
		return err
	}
	a.sendToken(ctx, mail.KindInvite, t, u.Email, "")
	return c.JSON(http.StatusOK, u)
}

// inviteToken finds or creates the invited user and issues its invite
// token, stamping invited_at and confirmation_sent_at.
func (a *API) inviteToken(ctx context.Context, tx pgx.Tx, email string, data map[string]any, redirect string, now time.Time) (*user, *emailToken, error) {
	u, err := userByEmail(ctx, tx, email)
	switch {
	case err == nil:
		if u.EmailConfirmedAt != nil {
			return nil, nil, unprocessable(codeEmailExists, "A user with this email address has already been registered")
		}
	case errors.Is(err, errNotFound):
		err = asAdmin(ctx, tx, func() (err error) {
			u, err = insertUser(ctx, tx, newUser{Email: email, UserMetadata: data, Now: now, Unconfirmed: true, Invited: true})
			return err
		})
		if err != nil {
			return nil, nil, emailExists(err)
		}
	default:
		return nil, nil, err
	}
	t := &emailToken{typ: ottConfirmation, verify: vtInvite, to: email, redirectTo: redirect}
	if err := a.issue(ctx, tx, u, t, now); err != nil {
		return nil, nil, err
	}
	if err := stampSent(ctx, tx, u.ID, "invited_at", now); err != nil {
		return nil, nil, err
	}
	if err := stampSent(ctx, tx, u.ID, "confirmation_sent_at", now); err != nil {
		return nil, nil, err
	}
	u, err = userByID(ctx, tx, u.ID, false)
	return u, t, err
}
