package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// The mail budget (security review M1). RATE_LIMIT_EMAIL_SENT is shared by
// every member, so it pays only for mail that goes out: a request takes one
// mail up front (an empty budget answers every address with the same 429,
// so the answer tells nothing) and gives it back when it turns out there
// was nothing to send — an unknown address, a banned member, a repeat
// within SMTP_MAX_FREQUENCY, mail switched off. The anonymous mailing
// endpoints also pass a per-IP limit (RATE_LIMIT_OTP) and a per-address one
// (RATE_LIMIT_OTP_ADDRESS_PER_HOUR), charged before the address is looked
// up so that they too answer members and strangers alike. Every limit that
// bites is logged and reported to Observe as ("mail_<limit>", "rate_limited").

// mailingContext is the context of a request that mails a link or a code:
// the request's values without its cancellation. A member who closes the
// page right after asking must still get the mail, and once the mail
// budget is charged the token and its mail must not be cut apart by a
// client that went away. The database's statement timeout still bounds
// the work.
func mailingContext(c *echo.Context) context.Context {
	return context.WithoutCancel(c.Request().Context())
}

// startMailing readies a request that must mail a link or a code: it
// returns the request's mailingContext, with one mail charged to
// RATE_LIMIT_EMAIL_SENT. Without a mailer nothing is charged: as GoTrue
// does without SMTP, the flow runs and the mail is only logged as due.
func (a *API) startMailing(c *echo.Context) (context.Context, error) {
	ctx := mailingContext(c)
	if a.mailer == nil {
		return ctx, nil
	}
	if err := a.chargeMail(ctx); err != nil {
		return nil, err
	}
	return ctx, nil
}

// startPublicMailing is startMailing for the endpoints anyone may call
// about any address: the per-IP and per-address limits come first.
func (a *API) startPublicMailing(c *echo.Context, email string) (context.Context, error) {
	ctx := mailingContext(c)
	if err := a.limitIP(ctx, a.otpLimit, "mail_ip", c.RealIP()); err != nil {
		return nil, err
	}
	if email != "" {
		ok, _, err := a.otpAddressLimit.allow(ctx, addressKey(email))
		if err != nil {
			return nil, err
		}
		if !ok {
			err := apierr.New(http.StatusTooManyRequests, codeOverEmailSendRateLimit, "Email rate limit exceeded")
			a.limitBit(ctx, "mail_address", err)
			return nil, err
		}
	}
	return a.startMailing(c)
}

// chargeMail takes one mail from the instance-wide RATE_LIMIT_EMAIL_SENT.
func (a *API) chargeMail(ctx context.Context) error {
	ok, _, err := a.mailLimit.allow(ctx, "email")
	if err != nil {
		return err
	}
	if !ok {
		err := apierr.New(http.StatusTooManyRequests, codeOverEmailSendRateLimit, "Email rate limit exceeded")
		a.limitBit(ctx, "mail_budget", err)
		return err
	}
	return nil
}

// mailUnused gives back the mail startMailing charged when the request
// sent none. A failure only costs the budget one mail, so it is logged.
func (a *API) mailUnused(ctx context.Context) {
	if a.mailer == nil {
		return
	}
	if err := a.mailLimit.refund(ctx, "email"); err != nil {
		a.log.WarnContext(ctx, "auth: could not return an unused mail to the budget", "err", err)
	}
}

// addressKey is the per-address bucket key: a hash, so that the buckets
// table does not collect the addresses strangers typed.
func addressKey(email string) string {
	sum := sha256.Sum256([]byte(email))
	return hex.EncodeToString(sum[:16])
}
