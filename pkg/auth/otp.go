package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/mail"
)

// Passwordless sign-in and confirmation mails: POST /otp mails a magic link
// and six-digit code (supabase-js's signInWithOtp), and sign-up without
// MAILER_AUTOCONFIRM mails a confirmation. An unconfirmed member always gets
// the confirmation (type signup), a confirmed one the magic link (type
// magiclink); verifyOtp's type "email" takes either, as GoTrue's does.

const (
	actionConfirmationRequested = "user_confirmation_requested"
	actionMagicLinkRequested    = "user_recovery_requested"
)

type otpParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	CreateUser          *bool          `json:"create_user"`
	Data                map[string]any `json:"data"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// otp handles POST /otp. create_user (default true) signs up an unknown
// address — subject to DISABLE_SIGNUP and the invite rule, with data as
// its metadata; false refuses it with GoTrue's otp_disabled, which, as on
// GoTrue, tells that the address has no account. A banned member is
// answered like any other and mailed nothing, and so is an unknown address
// without a usable invite code: a 422 there would tell members from
// strangers (security review M2). The app checks the code first with
// validate_invite_code, so a member-to-be still learns of a typo.
func (a *API) otp(c *echo.Context) error {
	var p otpParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	switch {
	case p.Email != "" && p.Phone != "":
		return badRequest(codeValidationFailed, "Only an email address or phone number should be provided")
	case p.Phone != "":
		return badRequest(codePhoneProviderDisabled, "Unsupported phone provider")
	case strings.TrimSpace(p.Email) == "":
		return badRequest(codeValidationFailed, "An email address is required")
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return err
	}
	if err := checkMetadata(p.Data); err != nil {
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
	create := p.CreateUser == nil || *p.CreateUser
	redirect := a.referrer(c, "")
	cl := clientOf(c)
	var t *emailToken
	var u *user
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		var err error
		u, err = userByEmail(ctx, tx, email)
		switch {
		case errors.Is(err, errNotFound):
			if !create {
				return unprocessable(codeOTPDisabled, "Signups not allowed for otp")
			}
			if u, err = a.otpSignUp(ctx, tx, email, p.Data, cl, now); err != nil {
				return err
			}
		case err != nil:
			return err
		case u.banned(now):
			return nil
		}
		// A repeat within SMTP_MAX_FREQUENCY is answered like the first
		// request, without a mail: GoTrue's 429 there is given to members only.
		t, err = a.loginToken(ctx, tx, u, redirect, pkce, cl, false)
		return err
	})
	if t == nil || err != nil {
		a.mailUnused(ctx)
	}
	if errors.Is(err, errNoInvite) {
		return c.JSON(http.StatusOK, map[string]any{})
	}
	if err != nil {
		return err
	}
	if t != nil {
		a.sendLoginToken(ctx, t, u)
	}
	return c.JSON(http.StatusOK, map[string]any{})
}

// otpSignUp makes the user an OTP request for an unknown address signs up
// (DISABLE_SIGNUP and the invite rule permitting). As GoTrue: with
// autoconfirm the new user is confirmed and gets a magic link; without it,
// a confirmation.
func (a *API) otpSignUp(ctx context.Context, tx pgx.Tx, email string, data map[string]any, cl client, now time.Time) (*user, error) {
	if a.cfg.DisableSignup {
		return nil, unprocessable(codeSignupDisabled, "Signups not allowed for this instance")
	}
	if err := a.inviteRule(ctx, tx); err != nil {
		return nil, err
	}
	u, err := insertUser(ctx, tx, newUser{Email: email, UserMetadata: data, Now: now, Unconfirmed: !a.cfg.MailerAutoconfirm})
	if err != nil {
		if isInviteRefusal(err) {
			return nil, errNoInvite
		}
		return nil, err
	}
	e := a.audit(u, actionSignedUp, logTeam, cl)
	e.Traits = map[string]any{"provider": "email"}
	return u, insertAudit(ctx, tx, e)
}

// errNoInvite rolls back an OTP sign-up whose invite code the database
// refused; the request is answered as any other.
var errNoInvite = errors.New("auth: no usable invite code")

// isInviteRefusal reports the database's refusal of a sign-up's code.
func isInviteRefusal(err error) bool {
	var ae *apierr.Error
	return errors.As(err, &ae) && ae.Code == codeInvalidInviteCode
}

// checkInvite answers a sign-up of a registered address as the database
// answers one of a new address (security review M2): with INVITE_REQUIRED
// the code in data.invite_code must be usable, by the same rule as the
// invite trigger's (validate_invite_code), though it is not used up.
func (a *API) checkInvite(ctx context.Context, tx pgx.Tx, data map[string]any) error {
	if !a.cfg.InviteRequired {
		return nil
	}
	code, _ := data["invite_code"].(string)
	ok, err := inviteUsable(ctx, tx, code)
	if err != nil {
		return err
	}
	if !ok {
		return unprocessable(codeInvalidInviteCode, msgInvalidInviteCode)
	}
	return nil
}

// loginToken issues u's confirmation (unconfirmed) or magic-link
// (confirmed) token. strict answers a request within SMTP_MAX_FREQUENCY
// with GoTrue's 429; otherwise it is skipped (nil, no error).
func (a *API) loginToken(ctx context.Context, tx pgx.Tx, u *user, redirect string, pkce *pkceChallenge, cl client, strict bool) (*emailToken, error) {
	now := a.now()
	t := &emailToken{typ: ottRecovery, verify: vtMagicLink, to: u.Email, redirectTo: redirect, pkce: pkce != nil}
	sentCol, action := "recovery_sent_at", actionMagicLinkRequested
	if u.EmailConfirmedAt == nil {
		t.typ, t.verify = ottConfirmation, vtSignup
		sentCol, action = "confirmation_sent_at", actionConfirmationRequested
	}
	if err := a.tooSoon(ctx, tx, u.ID, t.typ, now); err != nil {
		if strict {
			return nil, err
		}
		return nil, nil
	}
	if pkce != nil {
		if err := saveFlowState(ctx, tx, u.ID, pkce, methodFor(t.verify), now); err != nil {
			return nil, err
		}
	}
	if err := a.issue(ctx, tx, u, t, now); err != nil {
		return nil, err
	}
	if err := stampSent(ctx, tx, u.ID, sentCol, now); err != nil {
		return nil, err
	}
	return t, insertAudit(ctx, tx, a.audit(u, action, logUser, cl))
}

func (a *API) sendLoginToken(ctx context.Context, t *emailToken, u *user) {
	kind := mail.KindMagicLink
	if t.typ == ottConfirmation {
		kind = mail.KindConfirmation
	}
	a.sendToken(ctx, kind, t, u.Email, "")
}

// signupUnconfirmed is POST /signup without MAILER_AUTOCONFIRM: the user is
// created unconfirmed and mailed a confirmation; the answer is the user,
// without a session. An address that is already registered gets the same
// answer with a made-up user (and, if still unconfirmed, a new
// confirmation), as GoTrue does, so the answer does not tell who has an
// account; its invite code is checked as a new address's would be.
func (a *API) signupUnconfirmed(c *echo.Context, email string, p signupParams, pkce *pkceChallenge) error {
	ctx, err := a.startMailing(c)
	if err != nil {
		return err
	}
	hash, err := a.hashPassword(p.Password)
	if err != nil {
		return err
	}
	redirect := a.referrer(c, "")
	cl := clientOf(c)
	var u *user
	var t *emailToken
	existing := false
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		var err error
		u, err = userByEmail(ctx, tx, email)
		switch {
		case err == nil:
			existing = true
			if err := a.checkInvite(ctx, tx, p.Data); err != nil {
				return err
			}
			if u.EmailConfirmedAt != nil || u.banned(now) {
				return nil
			}
			t, err = a.loginToken(ctx, tx, u, redirect, pkce, cl, false)
			return err
		case !errors.Is(err, errNotFound):
			return err
		}
		if err := a.inviteRule(ctx, tx); err != nil {
			return err
		}
		u, err = insertUser(ctx, tx, newUser{Email: email, PasswordHash: hash, UserMetadata: p.Data, Now: now, Unconfirmed: true})
		if err != nil {
			return err
		}
		e := a.audit(u, actionSignedUp, logTeam, cl)
		e.Traits = map[string]any{"provider": "email"}
		if err := insertAudit(ctx, tx, e); err != nil {
			return err
		}
		t, err = a.loginToken(ctx, tx, u, redirect, pkce, cl, false)
		if err != nil {
			return err
		}
		u, err = userByID(ctx, tx, u.ID, false)
		return err
	})
	if t == nil || err != nil {
		a.mailUnused(ctx)
	}
	if err != nil {
		return err
	}
	if t != nil {
		a.sendLoginToken(ctx, t, u)
	}
	if existing {
		return c.JSON(http.StatusOK, obfuscatedUser(email, p.Data, a.now()))
	}
	return c.JSON(http.StatusOK, u)
}

// obfuscatedUser is the stand-in GoTrue answers a repeated sign-up with,
// shaped field for field like the unconfirmed user a new address gets
// (security review M2: a different shape told the two apart).
func obfuscatedUser(email string, data map[string]any, now time.Time) *user {
	id := randomUUID()
	meta := map[string]any{}
	for k, v := range data {
		meta[k] = v
	}
	return &user{
		ID: id, Aud: "authenticated", Role: "authenticated", Email: email, ConfirmationSentAt: &now,
		AppMetadata:  map[string]any{"provider": "email", "providers": []string{"email"}},
		UserMetadata: meta,
		Identities: []identity{{IdentityID: randomUUID(), ID: id, UserID: id, Provider: "email", Email: email,
			IdentityData: map[string]any{"email": email, "email_verified": false, "phone_verified": false, "sub": id},
			CreatedAt:    now, UpdatedAt: now}},
		CreatedAt: now, UpdatedAt: now,
	}
}

// randomUUID is a version 4 UUID.
func randomUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
