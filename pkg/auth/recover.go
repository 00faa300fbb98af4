package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/mail"
)

// Account recovery as GoTrue runs it: POST /recover mails a link to
// /verify?type=recovery and a six-digit code; either signs the member in
// (the link redirects to the site with the session in the URL fragment, the
// code is sent to POST /verify), and the site then sets a new password with
// PUT /user. The token is a one-time token (onetime.go): a newer link
// replaces an older one, a used one is gone, and they expire after
// MAILER_OTP_EXP.

const (
	codeOverEmailSendRateLimit = "over_email_send_rate_limit"
	codeOTPExpired             = "otp_expired"

	actionRecoveryRequested = "user_recovery_requested"

	msgLinkInvalid  = "Email link is invalid or has expired"
	msgTokenInvalid = "Token has expired or is invalid"
)

type recoverParams struct {
	Email               string `json:"email"`
	CodeChallenge       string `json:"code_challenge"`
	CodeChallengeMethod string `json:"code_challenge_method"`
}

// recover handles POST /recover. The answer is the same 200 {} whether or
// not the address belongs to a member, is banned, or was mailed moments ago
// (GoTrue answers that last case with a 429, which tells that the address
// exists; here the mail is just not sent again). The mail goes out after
// the response, so timing does not tell either. The limits (per IP, per
// address, the instance's mail budget) answer every address alike, and the
// budget pays only for mail sent (mailbudget.go).
func (a *API) recover(c *echo.Context) error {
	var p recoverParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if strings.TrimSpace(p.Email) == "" {
		return badRequest(codeValidationFailed, "Password recovery requires an email")
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return err
	}
	pkce, err := parseChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	ctx, err := a.startPublicMailing(c, email)
	if err != nil {
		return err
	}
	t, u, err := a.recoveryToken(ctx, email, a.referrer(c, ""), clientOf(c), true, pkce)
	if t == nil {
		a.mailUnused(ctx)
	}
	if err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	if t != nil {
		a.sendToken(ctx, mail.KindRecovery, t, u.Email, "")
	}
	return c.JSON(http.StatusOK, map[string]any{})
}

// recoveryToken makes a new recovery token for the member with email.
// throttle skips members mailed within SMTP_MAX_FREQUENCY (returning nil
// and no error). Unknown, deleted and banned members are errNotFound. With
// pkce, the token carries GoTrue's "pkce_" prefix and the challenge is kept
// in a flow state for /verify and the code exchange.
func (a *API) recoveryToken(ctx context.Context, email, redirectTo string, cl client, throttle bool, pkce *pkceChallenge) (*emailToken, *user, error) {
	var u *user
	var t *emailToken
	err := a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		var err error
		if u, err = userByEmail(ctx, tx, email); err != nil {
			return err
		}
		if u.banned(now) {
			return errNotFound
		}
		if throttle {
			sent, err := lastSent(ctx, tx, u.ID, ottRecovery)
			if err != nil {
				return err
			}
			if sent != nil && now.Before(sent.Add(a.cfg.SMTPMaxFrequency)) {
				return nil
			}
		}
		if pkce != nil {
			if err := saveFlowState(ctx, tx, u.ID, pkce, methodRecovery, now); err != nil {
				return err
			}
		}
		t = &emailToken{typ: ottRecovery, verify: vtRecovery, to: u.Email, redirectTo: redirectTo, pkce: pkce != nil}
		if err := a.issue(ctx, tx, u, t, now); err != nil {
			return err
		}
		if err := stampSent(ctx, tx, u.ID, "recovery_sent_at", now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, a.audit(u, actionRecoveryRequested, logUser, cl))
	})
	if err != nil {
		return nil, u, err
	}
	return t, u, nil
}

// RecoveryLink is a recovery link for operators (labelbase user
// reset-password): no throttle, no mail. It lands on SITE_URL.
func (a *API) RecoveryLink(ctx context.Context, email string) (string, error) {
	e, err := normaliseEmail(email)
	if err != nil {
		return "", err
	}
	t, _, err := a.recoveryToken(ctx, e, "", client{IP: "cli"}, false, nil)
	if errors.Is(err, errNotFound) {
		return "", fmt.Errorf("no active user with email %s", e)
	}
	if err != nil {
		return "", err
	}
	return t.link, nil
}

// WaitMail waits for mails in flight (tests, shutdown).
func (a *API) WaitMail() { a.mailWG.Wait() }

// pkcePrefix marks a stored token of the PKCE flow, as GoTrue marks them.
const pkcePrefix = "pkce_"
