package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

type generateLinkParams struct {
	Type       string         `json:"type"`
	Email      string         `json:"email"`
	NewEmail   string         `json:"new_email"`
	Password   string         `json:"password"`
	Data       map[string]any `json:"data"`
	RedirectTo string         `json:"redirect_to"`
}

// adminGenerateLink handles POST /admin/generate_link
// (auth.admin.generateLink) for every GoTrue link type: signup, invite,
// magiclink, recovery, email_change_current and email_change_new. The link
// is made as the mail would carry it but returned, not mailed, with GoTrue's
// properties beside the user: action_link, email_otp, hashed_token,
// redirect_to and verification_type. The email is validated before the
// type, as GoTrue does. A magiclink for an unknown address creates the
// user and returns a signup link, as GoTrue's does; recovery and the email
// change types need an existing user (404 user_not_found). Unlike GoTrue's,
// the hashed_token of email_change_new is the one its link carries (hashed
// with the new address), so verifyOtp({token_hash}) works for every type.
func (a *API) adminGenerateLink(c *echo.Context) error {
	act, err := a.requireAdmin(c)
	if err != nil {
		return err
	}
	var p generateLinkParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return err
	}
	switch p.Type {
	case vtSignup, vtInvite, vtMagicLink, vtRecovery, "email_change_current", "email_change_new":
	default:
		return badRequest(codeValidationFailed, "Invalid email action link type requested: %s", p.Type)
	}
	if err := checkMetadata(p.Data); err != nil {
		return err
	}
	if p.Type == "email_change_current" && !a.cfg.MailerSecureEmailChange {
		return badRequest(codeValidationFailed, "Enable secure email change to generate link for current email")
	}
	var newEmail, hash string
	if strings.HasPrefix(p.Type, "email_change") {
		if strings.TrimSpace(p.NewEmail) == "" {
			return badRequest(codeValidationFailed, "The new email address provided is invalid")
		}
		if newEmail, err = normaliseEmail(p.NewEmail); err != nil {
			return err
		}
	}
	if p.Type == vtSignup {
		if p.Password == "" {
			return badRequest(codeValidationFailed, "Signup requires a valid password")
		}
	}
	if p.Password != "" && (p.Type == vtSignup || p.Type == vtMagicLink) {
		if err := a.checkPassword(p.Password); err != nil {
			return err
		}
		if hash, err = a.hashPassword(p.Password); err != nil {
			return err
		}
	}
	ctx := c.Request().Context()
	redirect := a.referrer(c, "")
	if a.redirectAllowed(p.RedirectTo) {
		redirect = a.redirectTarget(p.RedirectTo)
	}
	cl := clientOf(c)
	var u *user
	var t *emailToken
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		var err error
		if p.Type == vtMagicLink {
			// A magic link for an unknown address signs it up, as GoTrue's
			// does: the link is then a confirmation (type signup).
			if _, err := userByEmail(ctx, tx, email); errors.Is(err, errNotFound) {
				p.Type = vtSignup
			} else if err != nil {
				return err
			}
		}
		switch p.Type {
		case vtInvite:
			u, t, err = a.inviteToken(ctx, tx, email, p.Data, redirect, now)
			return err
		case vtSignup:
			u, err = userByEmail(ctx, tx, email)
			switch {
			case err == nil && u.EmailConfirmedAt != nil:
				return unprocessable(codeEmailExists, "A user with this email address has already been registered")
			case errors.Is(err, errNotFound):
				if _, err := tx.Exec(ctx, `SELECT set_config($1, 'on', true)`, adminCreateMarker); err != nil {
					return translate("mark admin create", err)
				}
				u, err = insertUser(ctx, tx, newUser{Email: email, PasswordHash: hash, UserMetadata: p.Data, Now: now, Unconfirmed: true})
				if err != nil {
					return emailExists(err)
				}
				if _, err := tx.Exec(ctx, `SELECT set_config($1, '', true)`, adminCreateMarker); err != nil {
					return translate("unmark admin create", err)
				}
			case err != nil:
				return err
			}
			t = &emailToken{typ: ottConfirmation, verify: vtSignup, to: email, redirectTo: redirect}
			if err := a.issue(ctx, tx, u, t, now); err != nil {
				return err
			}
			return stampSent(ctx, tx, u.ID, "confirmation_sent_at", now)
		}
		if u, err = userByEmail(ctx, tx, email); err != nil {
			return err
		}
		switch p.Type {
		case vtMagicLink, vtRecovery:
			t = &emailToken{typ: ottRecovery, verify: p.Type, to: email, redirectTo: redirect}
			if err := a.issue(ctx, tx, u, t, now); err != nil {
				return err
			}
			return stampSent(ctx, tx, u.ID, "recovery_sent_at", now)
		default:
			if newEmail == u.Email {
				return unprocessable(codeEmailExists, "A user with this email address has already been registered")
			}
			var taken bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.users WHERE email = $1 AND is_sso_user = false)`,
				newEmail).Scan(&taken); err != nil {
				return translate("check email", err)
			}
			if taken {
				return unprocessable(codeEmailExists, "A user with this email address has already been registered")
			}
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET email_change = $2, email_change_sent_at = $3,
				email_change_confirm_status = 0 WHERE id = $1::uuid`, u.ID, newEmail, now); err != nil {
				return translate("start email change", err)
			}
			t = &emailToken{typ: ottEmailChangeNew, verify: vtEmailChange, to: newEmail, redirectTo: redirect}
			if p.Type == "email_change_current" {
				t.typ, t.to = ottEmailChangeCurrent, u.Email
			}
			return a.issue(ctx, tx, u, t, now)
		}
	})
	if errors.Is(err, errNotFound) {
		return apierr.New(http.StatusNotFound, codeUserNotFound, "User with this email not found")
	}
	if err != nil {
		return err
	}
	if err := insertAudit(ctx, a.pool, a.adminAudit(act, "user_link_generated", u, cl)); err != nil {
		return err
	}
	if u, err = userByID(ctx, a.pool, u.ID, false); err != nil {
		return err
	}
	out, err := structToMap(u)
	if err != nil {
		return err
	}
	out["action_link"] = t.link
	out["email_otp"] = t.otp
	out["hashed_token"] = t.hash
	out["redirect_to"] = t.redirectTo
	out["verification_type"] = t.verify
	return c.JSON(http.StatusOK, out)
}
