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

// putToken stores the user's token of kind typ, replacing an older one.
func putToken(ctx context.Context, q dbtx, userID, typ, hash, relatesTo string, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO auth.one_time_tokens (user_id, token_type, token_hash, relates_to, created_at, updated_at)
		VALUES ($1::uuid, $2, $3, $4, $5, $5)
		ON CONFLICT (user_id, token_type) DO UPDATE
		SET token_hash = EXCLUDED.token_hash, relates_to = EXCLUDED.relates_to,
		    created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, failed_attempts = 0`,
		userID, typ, hash, relatesTo, now)
	return translate("store one-time token", err)
}

// takeToken deletes and returns the live token whose stored hash is hash
// (or its PKCE form) among types, sent after notBefore; relatesTo, when set, must
// be the address it was sent to. errNotFound covers unknown, used and
// expired tokens alike.
func takeToken(ctx context.Context, q dbtx, hash string, types []string, relatesTo string, notBefore time.Time) (userID, typ string, pkce bool, err error) {
	if len(hash) > 200 {
		return "", "", false, errNotFound
	}
	err = q.QueryRow(ctx, `DELETE FROM auth.one_time_tokens
		WHERE token_hash IN ($1::text, $2::text || $1::text) AND token_type = ANY($3)
		  AND created_at > $4 AND ($5::text = '' OR relates_to = $5::text)
		RETURNING user_id::text, token_type, token_hash <> $1::text`,
		hash, pkcePrefix, types, notBefore, relatesTo).Scan(&userID, &typ, &pkce)
	return userID, typ, pkce, translate("take one-time token", err)
}

// hasToken reports whether the user holds a token of kind typ.
func hasToken(ctx context.Context, q dbtx, userID, typ string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.one_time_tokens WHERE user_id = $1::uuid AND token_type = $2)`,
		userID, typ).Scan(&ok)
	return ok, translate("read one-time token", err)
}

func dropTokens(ctx context.Context, q dbtx, userID string, types ...string) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1::uuid AND token_type = ANY($2)`, userID, types)
	return translate("drop one-time tokens", err)
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
		// url.Values.Encode would sort away; values stay query-escaped.
		t.link = a.issuer + "/verify?token=" + url.QueryEscape(carried) + "&type=" + url.QueryEscape(t.verify) +
			"&redirect_to=" + url.QueryEscape(redirect)
	}
	return nil
}

// sentColumnOf is the auth.users column recording when a token of a kind
// was last mailed; it outlives the token, which is deleted when used.
var sentColumnOf = map[string]string{
	ottRecovery: "recovery_sent_at", ottConfirmation: "confirmation_sent_at",
	ottEmailChangeNew: "email_change_sent_at", ottEmailChangeCurrent: "email_change_sent_at",
	ottReauthentication: "reauthentication_sent_at",
}

// lastSent is when u was last mailed a token of kind typ, nil if never.
func lastSent(ctx context.Context, q dbtx, userID, typ string) (*time.Time, error) {
	var t *time.Time
	err := q.QueryRow(ctx, `SELECT `+sentColumnOf[typ]+` FROM auth.users WHERE id = $1::uuid`, userID).Scan(&t)
	return t, translate("read sent time", err)
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
