package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/mail"
)

// Account recovery as GoTrue runs it: POST /recover mails a one-time link
// to /verify?type=recovery, which signs the member in and redirects to the
// site with the session in the URL fragment; the site then sets a new
// password with PUT /user.
//
// Unlike GoTrue, which stores the link's token itself, only a SHA-256 of
// the token is kept (users.recovery_token), so a leaked database copy holds
// no usable link. A newer link replaces an older one, a used link is
// cleared, and links expire after MAILER_OTP_EXP.

const (
	codeOverEmailSendRateLimit = "over_email_send_rate_limit"
	codeOTPExpired             = "otp_expired"

	actionRecoveryRequested = "user_recovery_requested"

	msgLinkInvalid = "Email link is invalid or has expired"
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
// the response, so timing does not tell either. Only the instance-wide
// RATE_LIMIT_EMAIL_SENT is reported, and it is charged for every request.
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
	if ok, _, err := a.mailLimit.allow(c.Request().Context(), "recover"); err != nil {
		return err
	} else if !ok {
		return apierr.New(http.StatusTooManyRequests, codeOverEmailSendRateLimit, "Email rate limit exceeded")
	}
	if a.mailer == nil {
		a.log.WarnContext(c.Request().Context(), "auth: password recovery requested but mail is off (set SMTP_HOST)")
		return c.JSON(http.StatusOK, map[string]any{})
	}
	ctx := c.Request().Context()
	link, u, err := a.recoveryLink(ctx, email, c.QueryParam("redirect_to"), clientOf(c), true, pkce)
	if err != nil && !errors.Is(err, errNotFound) {
		return err
	}
	if link != "" {
		a.sendRecoveryMail(ctx, u.Email, link)
	}
	return c.JSON(http.StatusOK, map[string]any{})
}

// recoveryLink makes a new recovery token for the member with email and
// returns its link. throttle skips members mailed within SMTP_MAX_FREQUENCY
// (returning "" and no error). Unknown, deleted and banned members are
// errNotFound. With pkce, the token is marked for the PKCE flow (its
// stored hash carries GoTrue's "pkce_" prefix) and the challenge is kept
// in a flow state for /verify and the code exchange.
func (a *API) recoveryLink(ctx context.Context, email, redirectTo string, cl client, throttle bool, pkce *pkceChallenge) (string, *user, error) {
	tok, hash, err := newRecoveryToken()
	if err != nil {
		return "", nil, err
	}
	var u *user
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		if u, err = userByEmail(ctx, tx, email); err != nil {
			return err
		}
		if u.banned(now) {
			return errNotFound
		}
		if throttle {
			sent, err := recoverySentAt(ctx, tx, u.ID)
			if err != nil {
				return err
			}
			if sent != nil && now.Before(sent.Add(a.cfg.SMTPMaxFrequency)) {
				tok = ""
				return nil
			}
		}
		stored := hash
		if pkce != nil {
			stored = pkcePrefix + hash
			if err := saveFlowState(ctx, tx, u.ID, pkce, now); err != nil {
				return err
			}
		}
		if err := setRecoveryToken(ctx, tx, u.ID, stored, now); err != nil {
			return err
		}
		return insertAudit(ctx, tx, a.audit(u, actionRecoveryRequested, logUser, cl))
	})
	if err != nil || tok == "" {
		return "", u, err
	}
	q := url.Values{"token": {tok}, "type": {"recovery"}, "redirect_to": {a.redirectTarget(redirectTo)}}
	return issuerFor(a.cfg.SiteURL) + "/verify?" + q.Encode(), u, nil
}

// RecoveryLink is recoveryLink for operators (labelbase user
// reset-password): no throttle, no mail.
func (a *API) RecoveryLink(ctx context.Context, email string) (string, error) {
	e, err := normaliseEmail(email)
	if err != nil {
		return "", err
	}
	link, _, err := a.recoveryLink(ctx, e, "", client{IP: "cli"}, false, nil)
	if errors.Is(err, errNotFound) {
		return "", fmt.Errorf("no active user with email %s", e)
	}
	return link, err
}

func (a *API) sendRecoveryMail(reqCtx context.Context, to, link string) {
	msg := mail.Message{
		To:      to,
		Subject: "Reset your Labelbase password",
		Text: "Someone asked to reset the password of your Labelbase account.\n\n" +
			"To choose a new password, open this link (it works once, for " + a.cfg.MailerOTPExp.String() + "):\n\n" +
			link + "\n\nIf it was not you, ignore this mail; your password stays as it is.\n",
	}
	a.mailWG.Add(1)
	go func() {
		defer a.mailWG.Done()
		// Not the request's deadline (the mail outlives the response), but
		// its values: the failure is logged with the request id.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(reqCtx), 30*time.Second)
		defer cancel()
		if err := a.mailer.Send(ctx, msg); err != nil {
			a.log.ErrorContext(ctx, "auth: sending recovery mail failed", "err", err)
		}
	}()
}

// WaitMail waits for recovery mails in flight (tests, shutdown).
func (a *API) WaitMail() { a.mailWG.Wait() }

// redirectTarget is redirect_to when it points at the site (same scheme and
// host as SITE_URL), else SITE_URL, so a link cannot send a session to
// another origin.
func (a *API) redirectTarget(raw string) string {
	site := a.cfg.SiteURL
	if raw == "" {
		return site
	}
	u, err := url.Parse(raw)
	s, serr := url.Parse(site)
	if err != nil || serr != nil || u.Scheme != s.Scheme || u.Host != s.Host {
		return site
	}
	u.Fragment = ""
	return u.String()
}

// newRecoveryToken returns a random token for the link and its hash for
// the database.
func newRecoveryToken() (tok, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	tok = base64.RawURLEncoding.EncodeToString(b)
	return tok, hashRecoveryToken(tok), nil
}

// pkcePrefix marks a stored recovery token of the PKCE flow, as GoTrue
// marks its token hashes.
const pkcePrefix = "pkce_"

func hashRecoveryToken(tok string) string {
	sum := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(sum[:])
}
