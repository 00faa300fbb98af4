package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/mail"
)

type resendParams struct {
	Type  string `json:"type"`
	Email string `json:"email"`
	Phone string `json:"phone"`
}

// resend handles POST /resend (supabase-js's auth.resend) for signup and
// email_change. As GoTrue does, it answers 200 {} when there is nothing to
// resend — no such member, already confirmed, no pending change — so the
// answer does not tell who has an account. Unlike GoTrue, a request within
// SMTP_MAX_FREQUENCY of the last mail gets the same 200 (and no mail):
// GoTrue's 429 there is only ever given to addresses with an account.
func (a *API) resend(c *echo.Context) error {
	var p resendParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	switch p.Type {
	case vtSignup, vtEmailChange, "sms", "phone_change":
	default:
		return badRequest(codeValidationFailed, "Missing one of these types: signup, email_change, sms, phone_change")
	}
	if p.Email == "" && p.Type == vtSignup {
		return badRequest(codeValidationFailed, "Type provided requires an email address")
	}
	if p.Phone == "" && p.Type == "sms" {
		return badRequest(codeValidationFailed, "Type provided requires a phone number")
	}
	switch {
	case p.Email != "" && p.Phone != "":
		return badRequest(codeValidationFailed, "Only an email address or phone number should be provided.")
	case p.Phone != "":
		return badRequest(codeValidationFailed, "Phone logins are disabled")
	case strings.TrimSpace(p.Email) == "":
		return badRequest(codeValidationFailed, "Missing email address or phone number")
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return err
	}
	ctx, err := a.startPublicMailing(c, email)
	if err != nil {
		return err
	}
	redirect := a.referrer(c, "")
	cl := clientOf(c)
	var u *user
	var login *emailToken
	var change []*emailToken
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		var err error
		if u, err = userByEmail(ctx, tx, email); err != nil {
			return err
		}
		if u.banned(now) {
			return nil
		}
		switch p.Type {
		case vtSignup:
			if u.EmailConfirmedAt != nil {
				return nil
			}
			login, err = a.loginToken(ctx, tx, u, redirect, nil, cl, true)
			return err
		default:
			if u.NewEmail == "" {
				return nil
			}
			change, err = a.resendEmailChange(ctx, tx, u, redirect, now)
			return err
		}
	})
	if login == nil && change == nil {
		a.mailUnused(ctx)
	}
	if errors.Is(err, errNotFound) || isTooSoon(err) {
		// Within SMTP_MAX_FREQUENCY too: a 429 only for addresses with
		// something to resend would tell who has an account (review M2).
		return c.JSON(http.StatusOK, map[string]any{})
	}
	if err != nil {
		return err
	}
	if login != nil {
		a.sendLoginToken(ctx, login, u)
	}
	for _, t := range change {
		a.sendToken(ctx, mail.KindEmailChange, t, u.Email, u.NewEmail)
	}
	return c.JSON(http.StatusOK, map[string]any{})
}

// isTooSoon reports tooSoon's refusal.
func isTooSoon(err error) bool {
	var ae *apierr.Error
	return errors.As(err, &ae) && ae.Code == codeOverEmailSendRateLimit
}
