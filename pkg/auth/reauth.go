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

// Reauthentication as GoTrue runs it: GET /reauthenticate mails the
// signed-in member a six-digit nonce, which PUT /user then brings with a
// password change when SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION is
// on and the session is older than reauthWindow. The nonce works once.

const (
	codeReauthNeeded   = "reauthentication_needed"
	codeReauthNotValid = "reauthentication_not_valid"

	actionReauthenticate = "user_reauthenticate_requested"

	msgInvalidNonce = "Nonce has expired or is invalid"
)

// reauthWindow is how long after signing in a session may change the
// password without a nonce (GoTrue's 24 hours).
const reauthWindow = 24 * time.Hour

// reauthenticate handles GET /reauthenticate.
func (a *API) reauthenticate(c *echo.Context) error {
	p, err := a.authenticate(c)
	if err != nil {
		return err
	}
	if p.user.Email == "" {
		return unprocessable(codeValidationFailed, "Reauthentication requires the user to have an email or a phone number")
	}
	if p.user.EmailConfirmedAt == nil {
		return unprocessable(codeEmailNotConfirmed, "Please verify your email first.")
	}
	ctx, err := a.startPublicMailing(c, "")
	if err != nil {
		return err
	}
	cl := clientOf(c)
	t := &emailToken{typ: ottReauthentication, to: p.user.Email}
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		if err := a.tooSoon(ctx, tx, p.user.ID, ottReauthentication, now); err != nil {
			return err
		}
		if err := a.issue(ctx, tx, p.user, t, now); err != nil {
			return err
		}
		if err := stampSent(ctx, tx, p.user.ID, "reauthentication_sent_at", now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, a.audit(p.user, actionReauthenticate, logUser, cl))
	})
	if err != nil {
		a.mailUnused(ctx)
		return err
	}
	a.sendToken(ctx, mail.KindReauthentication, t, p.user.Email, "")
	return c.JSON(http.StatusOK, map[string]any{})
}

// checkNonce enforces reauthentication for a password change of u in
// session sessionID: nothing to do unless the setting is on and the
// session is older than reauthWindow (or unknown); then the nonce must be
// u's live reauthentication code, which it uses up.
func (a *API) checkNonce(ctx context.Context, tx pgx.Tx, u *user, sessionID, nonce string, now time.Time) error {
	if !a.cfg.UpdatePasswordRequireReauth {
		return nil
	}
	if sessionID != "" {
		s, err := sessionByID(ctx, tx, sessionID, false)
		if err != nil && !errors.Is(err, errNotFound) {
			return err
		}
		if err == nil && now.Before(s.CreatedAt.Add(reauthWindow)) {
			return nil
		}
	}
	if strings.TrimSpace(nonce) == "" {
		return badRequest(codeReauthNeeded, "Password update requires reauthentication")
	}
	_, _, _, err := takeToken(ctx, tx, storedHash(a.linkToken(u.Email, strings.TrimSpace(nonce))), []string{ottReauthentication},
		u.Email, now.Add(-a.cfg.MailerOTPExp))
	if errors.Is(err, errNotFound) {
		return unprocessable(codeReauthNotValid, msgInvalidNonce)
	}
	return err
}
