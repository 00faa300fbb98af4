package auth

import (
	"net/http"
	"net/mail"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// signupParams is the body supabase-js's signUp sends.
// gotrue_meta_security is accepted and ignored: there is no CAPTCHA.
type signupParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	Password            string         `json:"password"`
	Data                map[string]any `json:"data"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// signup handles POST /signup. With MAILER_AUTOCONFIRM (the default) the
// user is confirmed at once and the answer is a session, which supabase-js
// announces as SIGNED_IN; without it the answer is the unconfirmed user
// and a confirmation link and code go to the address. The invite code
// travels in data.invite_code and is checked (and consumed) by the
// database in the same INSERT, unless INVITE_REQUIRED is off. A body with
// neither email nor phone is supabase-js's signInAnonymously, which is
// off, as GoTrue answers it when disabled.
func (a *API) signup(c *echo.Context) error {
	if err := a.limitIP(c.Request().Context(), a.signupLimit, "signup", c.RealIP()); err != nil {
		return err
	}
	if a.cfg.DisableSignup {
		return unprocessable(codeSignupDisabled, "Signups not allowed for this instance")
	}
	var p signupParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	switch {
	case p.Email == "" && p.Phone != "":
		return unprocessable(codePhoneProviderDisabled, "Phone signups are disabled")
	case strings.TrimSpace(p.Email) == "" && p.Phone == "":
		return unprocessable(codeAnonymousProviderDisabled, "Anonymous sign-ins are disabled")
	}
	email, err := normaliseEmail(p.Email)
	if err != nil {
		return err
	}
	if p.Password == "" {
		return badRequest(codeValidationFailed, "Signup requires a valid password")
	}
	if err := checkMetadata(p.Data); err != nil {
		return err
	}
	if err := a.checkPassword(p.Password); err != nil {
		return err
	}
	pkce, err := parseChallenge(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	if !a.cfg.MailerAutoconfirm {
		return a.signupUnconfirmed(c, email, p, pkce)
	}
	// Hash before the transaction: bcrypt is the slow part and must not
	// hold a connection or the invite row's lock.
	hash, err := a.hashPassword(p.Password)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	var resp *sessionResponse
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		// The code is checked before the address, as the trigger would for a
		// new one: without a usable code a registered address gets the same
		// invalid_invite_code, not user_already_exists (issue #26 item 4).
		if err := a.checkInvite(ctx, tx, p.Data); err != nil {
			return err
		}
		if err := a.inviteRule(ctx, tx); err != nil {
			return err
		}
		u, err := insertUser(ctx, tx, newUser{Email: email, PasswordHash: hash, UserMetadata: p.Data, Now: now})
		if err != nil {
			return err
		}
		sid, refresh, err := createSession(ctx, tx, u.ID, now, cl, methodPassword)
		if err != nil {
			return err
		}
		e := a.audit(u, actionSignedUp, logTeam, cl)
		e.Traits = map[string]any{"provider": "email"}
		if err := insertAudit(ctx, tx, e); err != nil {
			return err
		}
		resp, err = a.issueSession(u, sid, refresh, methodPassword, now, now)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, resp)
}

// normaliseEmail trims and lower-cases an address, as GoTrue stores them,
// and refuses anything that is not a plain addr-spec with a dotted domain.
func normaliseEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", badRequest(codeValidationFailed, "To signup, please provide your email")
	}
	invalid := badRequest(codeValidationFailed, "Unable to validate email address: invalid format")
	// ASCII only, as GoTrue's validator: Unicode case folding and
	// normalisation forms would let look-alike addresses be two accounts.
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return "", invalid
		}
	}
	s = strings.ToLower(s)
	if len(s) > 255 {
		return "", invalid
	}
	addr, err := mail.ParseAddress(s)
	if err != nil || addr.Address != s || addr.Name != "" {
		return "", invalid
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") ||
		strings.ContainsAny(s, " \t\r\n<>()[],;:\"\\") {
		return "", invalid
	}
	return s, nil
}
