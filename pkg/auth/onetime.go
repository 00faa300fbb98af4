package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/mail"
)

// One-time tokens of the email flows, kept where GoTrue keeps them
// (migration 000018): one live token per user and kind in
// auth.one_time_tokens. A token is a six-digit code; the mailed link
// carries a token derived from the address and the code, so a member may
// type the code (POST /verify {email, token}) or open the link (GET
// /verify?token=…) and both name the same row, which is deleted when used:
// a code or link works once. A newer token of the same kind replaces the
// older, and tokens expire after MAILER_OTP_EXP.
//
// GoTrue derives the link's token as SHA-224(address + code) and stores it
// as it is, so a copy of its database holds live links, and six digits are
// quickly brute-forced offline from any unkeyed hash. Here the link's token
// is an HMAC of address and code under a key derived from JWT_SECRET, and
// only its SHA-256 is stored: without the secret, a copy of the database
// yields neither a link nor a code. Guessing online is bounded by
// RATE_LIMIT_VERIFY per client and OTP_MAX_ATTEMPTS per code (attempts.go).

// Token kinds (GoTrue's one_time_token_type).
const (
	ottConfirmation       = "confirmation_token"
	ottReauthentication   = "reauthentication_token"
	ottRecovery           = "recovery_token"
	ottEmailChangeNew     = "email_change_token_new"
	ottEmailChangeCurrent = "email_change_token_current"
)

// Verification types (the type of /verify and of the link).
const (
	vtSignup      = "signup"
	vtInvite      = "invite"
	vtMagicLink   = "magiclink"
	vtRecovery    = "recovery"
	vtEmailChange = "email_change"
	vtEmail       = "email"
)

// tokenTypesFor is which kinds of token a verification type may redeem.
var tokenTypesFor = map[string][]string{
	vtSignup:      {ottConfirmation},
	vtInvite:      {ottConfirmation},
	vtMagicLink:   {ottRecovery},
	vtRecovery:    {ottRecovery},
	vtEmailChange: {ottEmailChangeCurrent, ottEmailChangeNew},
	vtEmail:       {ottConfirmation, ottRecovery},
}

// newOTP returns six random digits.
func newOTP() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("auth: one-time code: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// linkToken is the token a link carries for a code sent to addr.
func (a *API) linkToken(addr, otp string) string {
	m := hmac.New(sha256.New, a.ottKey)
	m.Write([]byte(addr))
	m.Write([]byte{0})
	m.Write([]byte(otp))
	return hex.EncodeToString(m.Sum(nil))
}

// storedHash is how a link's token is stored and looked up.
func storedHash(linkToken string) string {
	sum := sha256.Sum256([]byte(linkToken))
	return hex.EncodeToString(sum[:])
}

// ottKeyFrom derives the link-token key from JWT_SECRET, apart from every
// other use of the secret.
func ottKeyFrom(secret string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("labelbase one-time tokens v1"))
	return m.Sum(nil)
}

// emailToken is a token about to be mailed.
type emailToken struct {
	// typ is the token kind, verify the link's verification type ("" for a
	// code without a link), to the address mailed (and hashed).
	typ, verify, to string
	redirectTo      string
	pkce            bool

	// Filled by issue: the code, the link's token (without a PKCE
	// prefix) and the link.
	otp, hash, link string
}

// issue makes and stores t's code for u and builds its link.
func (a *API) issue(ctx context.Context, q dbtx, u *user, t *emailToken, now time.Time) error {
	otp, err := newOTP()
	if err != nil {
		return err
	}
	t.otp, t.hash = otp, a.linkToken(t.to, otp)
	stored, carried := storedHash(t.hash), t.hash
	if t.pkce {
		stored, carried = pkcePrefix+stored, pkcePrefix+t.hash
	}
	if err := putToken(ctx, q, u.ID, t.typ, stored, t.to, now); err != nil {
		return err
	}
	if t.verify != "" {
		redirect := t.redirectTo
		if redirect == "" {
			redirect = a.cfg.SiteURL
		}
		// GoTrue's parameter order (token, type, redirect_to), which
		// url.Values.Encode would sort away.
		t.link = a.issuer + "/verify?token=" + url.QueryEscape(carried) + "&type=" + url.QueryEscape(t.verify) +
			"&redirect_to=" + linkRedirect(redirect)
	}
	return nil
}

// linkRedirect writes a link's redirect_to as GoTrue's mailer does: as it
// is (supabase-js's own suite expects "redirect_to=http://localhost:9999/welcome"
// in generate_link's action_link), query-escaped only when it would not
// read back as itself. GoTrue escapes a target holding &, = or #; a +, a
// % or a ; would be misread too, so those are escaped here as well (GoTrue
// writes them bare, and /verify would land somewhere else).
func linkRedirect(target string) string {
	if !strings.ContainsAny(target, "&=#") {
		if v, err := url.ParseQuery("redirect_to=" + target); err == nil && len(v) == 1 && v.Get("redirect_to") == target {
			return target
		}
	}
	return url.QueryEscape(target)
}

// tooSoon returns GoTrue's 429 when u was mailed a token of kind typ
// within SMTP_MAX_FREQUENCY.
func (a *API) tooSoon(ctx context.Context, q dbtx, userID, typ string, now time.Time) error {
	sent, err := lastSent(ctx, q, userID, typ)
	if err != nil || sent == nil {
		return err
	}
	if wait := sent.Add(a.cfg.SMTPMaxFrequency).Sub(now); wait > 0 {
		secs := int(wait.Seconds() + 0.999)
		return apierr.New(http.StatusTooManyRequests, codeOverEmailSendRateLimit,
			"For security purposes, you can only request this after %d seconds.", secs)
	}
	return nil
}

// sendToken mails t with the template of kind. The mail goes out after
// the response, so its timing tells nothing.
func (a *API) sendToken(reqCtx context.Context, kind mail.Kind, t *emailToken, email, newEmail string) {
	if a.mailer == nil {
		a.log.WarnContext(reqCtx, "auth: a mail was due but mail is off (set SMTP_HOST)", "kind", string(kind))
		return
	}
	msg, err := mail.Render(kind, t.to, mail.TemplateData{
		SiteURL: a.cfg.SiteURL, ConfirmationURL: t.link, Token: t.otp, TokenHash: t.hash,
		Email: email, NewEmail: newEmail, RedirectTo: t.redirectTo, Expiry: a.cfg.MailerOTPExp,
	})
	if err != nil {
		a.log.ErrorContext(reqCtx, "auth: rendering mail failed", "err", err)
		return
	}
	a.mailWG.Add(1)
	go func() {
		defer a.mailWG.Done()
		// Not the request's deadline (the mail outlives the response), but
		// its values: the failure is logged with the request id.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(reqCtx), 30*time.Second)
		defer cancel()
		if err := a.mailer.Send(ctx, msg); err != nil {
			a.log.ErrorContext(ctx, "auth: sending mail failed", "kind", string(kind), "err", err)
		}
	}()
}
