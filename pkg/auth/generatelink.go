package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

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

// linkRequest is a checked generate_link request.
type linkRequest struct {
	typ, email, newEmail string
	hash                 string // bcrypt of the password, for signup and magiclink
	data                 map[string]any
	redirect             string
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
	r, err := a.parseLinkRequest(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	var u *user
	var t *emailToken
	err = a.tx(ctx, func(tx pgx.Tx) error {
		var err error
		u, t, err = a.generateLink(ctx, tx, r, a.now())
		return err
	})
	if errors.Is(err, errNotFound) {
		return apierr.New(http.StatusNotFound, codeUserNotFound, "User with this email not found")
	}
	if err != nil {
		return err
	}
	if err := insertAudit(ctx, a.pool, a.adminAudit(act, "user_link_generated", u, clientOf(c))); err != nil {
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

// parseLinkRequest checks the body in GoTrue's order.
func (a *API) parseLinkRequest(c *echo.Context) (linkRequest, error) {
	var p generateLinkParams
	if err := a.decodeBody(c, &p); err != nil {
		return linkRequest{}, err
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return linkRequest{}, err
	}
	switch p.Type {
	case vtSignup, vtInvite, vtMagicLink, vtRecovery, "email_change_current", "email_change_new":
	default:
		return linkRequest{}, badRequest(codeValidationFailed, "Invalid email action link type requested: %s", p.Type)
	}
	if err := checkMetadata(p.Data); err != nil {
		return linkRequest{}, err
	}
	if p.Type == "email_change_current" && !a.cfg.MailerSecureEmailChange {
		return linkRequest{}, badRequest(codeValidationFailed, "Enable secure email change to generate link for current email")
	}
	r := linkRequest{typ: p.Type, email: email, data: p.Data, redirect: a.referrer(c, "")}
	if a.redirectAllowed(p.RedirectTo) {
		r.redirect = a.redirectTarget(p.RedirectTo)
	}
	if strings.HasPrefix(p.Type, "email_change") {
		if strings.TrimSpace(p.NewEmail) == "" {
			return linkRequest{}, badRequest(codeValidationFailed, "The new email address provided is invalid")
		}
		if r.newEmail, err = normaliseEmail(p.NewEmail); err != nil {
			return linkRequest{}, err
		}
	}
	if p.Type == vtSignup && p.Password == "" {
		return linkRequest{}, badRequest(codeValidationFailed, "Signup requires a valid password")
	}
	if p.Password != "" && (p.Type == vtSignup || p.Type == vtMagicLink) {
		if err := a.checkPassword(p.Password); err != nil {
			return linkRequest{}, err
		}
		if r.hash, err = a.hashPassword(p.Password); err != nil {
			return linkRequest{}, err
		}
	}
	return r, nil
}

// generateLink makes the link of r's type, one function per kind.
func (a *API) generateLink(ctx context.Context, tx pgx.Tx, r linkRequest, now time.Time) (*user, *emailToken, error) {
	if r.typ == vtMagicLink {
		// A magic link for an unknown address signs it up, as GoTrue's
		// does: the link is then a confirmation (type signup).
		if _, err := userByEmail(ctx, tx, r.email); errors.Is(err, errNotFound) {
			r.typ = vtSignup
		} else if err != nil {
			return nil, nil, err
		}
	}
	switch r.typ {
	case vtInvite:
		return a.inviteToken(ctx, tx, r.email, r.data, r.redirect, now)
	case vtSignup:
		return a.signupLink(ctx, tx, r, now)
	}
	u, err := userByEmail(ctx, tx, r.email)
	if err != nil {
		return nil, nil, err
	}
	if r.typ == vtMagicLink || r.typ == vtRecovery {
		return a.recoveryLink(ctx, tx, u, r, now)
	}
	return a.emailChangeLink(ctx, tx, u, r, now)
}

// recoveryLink signs an existing user in: a magic link is a recovery
// token under its own type, as GoTrue keeps it (recovery_sent_at).
func (a *API) recoveryLink(ctx context.Context, tx pgx.Tx, u *user, r linkRequest, now time.Time) (*user, *emailToken, error) {
	t := &emailToken{typ: ottRecovery, verify: r.typ, to: r.email, redirectTo: r.redirect}
	if err := a.issue(ctx, tx, u, t, now); err != nil {
		return nil, nil, err
	}
	return u, t, stampSent(ctx, tx, u.ID, "recovery_sent_at", now)
}

// signupLink confirms an unconfirmed user, made here (without an invite
// code, as an admin may) when the address is new.
func (a *API) signupLink(ctx context.Context, tx pgx.Tx, r linkRequest, now time.Time) (*user, *emailToken, error) {
	u, err := userByEmail(ctx, tx, r.email)
	switch {
	case err == nil && u.EmailConfirmedAt != nil:
		return nil, nil, unprocessable(codeEmailExists, "A user with this email address has already been registered")
	case errors.Is(err, errNotFound):
		err = asAdmin(ctx, tx, func() (err error) {
			u, err = insertUser(ctx, tx, newUser{Email: r.email, PasswordHash: r.hash, UserMetadata: r.data, Now: now, Unconfirmed: true})
			return err
		})
		if err != nil {
			return nil, nil, emailExists(err)
		}
	case err != nil:
		return nil, nil, err
	}
	t := &emailToken{typ: ottConfirmation, verify: vtSignup, to: r.email, redirectTo: r.redirect}
	if err := a.issue(ctx, tx, u, t, now); err != nil {
		return nil, nil, err
	}
	return u, t, stampSent(ctx, tx, u.ID, "confirmation_sent_at", now)
}

// emailChangeLink records the change with the steps PUT /user's
// startEmailChange takes (checkNewEmail, recordEmailChange in
// emailchange_store.go) and makes the one side's link asked for. It does
// not call startEmailChange itself: as GoTrue's admin path, it applies no
// SMTP_MAX_FREQUENCY wait and mints one side's token, not both.
func (a *API) emailChangeLink(ctx context.Context, tx pgx.Tx, u *user, r linkRequest, now time.Time) (*user, *emailToken, error) {
	if err := checkNewEmail(ctx, tx, u, r.newEmail); err != nil {
		return nil, nil, err
	}
	if err := recordEmailChange(ctx, tx, u.ID, r.newEmail, now); err != nil {
		return nil, nil, err
	}
	t := &emailToken{typ: ottEmailChangeNew, verify: vtEmailChange, to: r.newEmail, redirectTo: r.redirect}
	if r.typ == "email_change_current" {
		t.typ, t.to = ottEmailChangeCurrent, u.Email
	}
	return u, t, a.issue(ctx, tx, u, t, now)
}
