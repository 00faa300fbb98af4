package auth

import (
	"context"
	"errors"
	"net/http"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/token"
)

// principal is the signed-in caller of /user and /logout.
type principal struct {
	user *user
	// sessionID is the token's session_id, "" for a token minted without
	// one (GoTrue accepts those too).
	sessionID string
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// authenticate checks the bearer access token and that its user and
// session still exist. The codes matter to supabase-js: bad_jwt leaves the
// client signed in, session_not_found signs it out (the session was ended
// elsewhere), user_not_found leaves it alone. The user is checked first
// because deleting a user also deletes its sessions.
func (a *API) authenticate(c *echo.Context) (*principal, error) {
	raw := bearerToken(c.Request())
	if raw == "" {
		return nil, apierr.New(http.StatusUnauthorized, codeNoAuthorization, "This endpoint requires a valid Bearer token")
	}
	v, err := a.verifier.Verify(raw)
	if err != nil {
		msg := "invalid JWT: unable to parse or verify signature"
		if errors.Is(err, token.ErrExpired) {
			msg = "invalid JWT: token is expired"
		}
		return nil, forbidden(codeBadJWT, "%s", msg).WithCause(err)
	}
	if !uuidRE.MatchString(v.Subject) {
		return nil, forbidden(codeBadJWT, "invalid claim: missing sub claim")
	}
	if v.SessionID != "" && !uuidRE.MatchString(v.SessionID) {
		return nil, forbidden(codeBadJWT, "invalid claim: session_id claim must be a UUID")
	}
	ctx := c.Request().Context()
	u, err := userByID(ctx, a.pool, v.Subject, false)
	if errors.Is(err, errNotFound) {
		return nil, apierr.New(http.StatusNotFound, codeUserNotFound, "User from sub claim in JWT does not exist")
	}
	if err != nil {
		return nil, err
	}
	if v.SessionID != "" {
		s, err := sessionByID(ctx, a.pool, v.SessionID, false)
		if errors.Is(err, errNotFound) || (err == nil && (s.UserID != u.ID || (s.NotAfter != nil && a.now().After(*s.NotAfter)))) {
			return nil, forbidden(codeSessionNotFound, "Session from session_id claim in JWT does not exist")
		}
		if err != nil {
			return nil, err
		}
	}
	return &principal{user: u, sessionID: v.SessionID}, nil
}

// getUser handles GET /user: the caller's user, bare, as GoTrue sends it.
func (a *API) getUser(c *echo.Context) error {
	p, err := a.authenticate(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, p.user)
}

// userUpdateParams is the body of PUT /user. Pointers tell "absent" from
// "empty".
type userUpdateParams struct {
	Email               *string        `json:"email"`
	Phone               *string        `json:"phone"`
	Password            *string        `json:"password"`
	Data                map[string]any `json:"data"`
	Nonce               string         `json:"nonce"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// updateUser handles PUT /user: a new password, merged user_metadata, or a
// new email — applied at once with MAILER_AUTOCONFIRM, else confirmed by
// mail first (emailchange.go). It answers with the updated user, which
// supabase-js stores and announces as USER_UPDATED.
//
// A password change ends the user's other sessions, as GoTrue does, so a
// changed password locks out whoever knew the old one. With
// SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION, a session older than a
// day must bring the nonce of GET /reauthenticate.
func (a *API) updateUser(c *echo.Context) error {
	if err := a.limitIP(c.Request().Context(), a.updateLimit, "user_update", c.RealIP()); err != nil {
		return err
	}
	p, err := a.authenticate(c)
	if err != nil {
		return err
	}
	var params userUpdateParams
	if err := a.decodeBody(c, &params); err != nil {
		return err
	}
	ch, err := a.prepareChange(changeInput{Email: params.Email, Phone: params.Phone, Password: params.Password,
		UserMeta: params.Data, currentPhone: p.user.Phone})
	if err != nil {
		return err
	}
	if params.Password != nil && a.passwordMatches(p.user.passwordHash, *params.Password) {
		return unprocessable(codeSamePassword, "New password should be different from the old password.")
	}
	if err := a.requireAAL2ForCredentials(c.Request().Context(), p, (ch.email != "" && ch.email != p.user.Email) || params.Password != nil); err != nil {
		return err
	}
	pkce, err := parseChallenge(params.CodeChallenge, params.CodeChallengeMethod)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	// The new address is only recorded, and mailed, unless nothing can be
	// mailed and MAILER_AUTOCONFIRM is on. Unlike GoTrue, autoconfirm does
	// not move an address without proof when mail works (security review
	// L5: a member could otherwise take an address before its owner is
	// invited).
	var newEmail string
	if (!a.cfg.MailerAutoconfirm || a.mailer != nil) && ch.email != "" && ch.email != p.user.Email {
		if a.mailer != nil {
			if err := a.chargeMail(ctx); err != nil {
				return err
			}
		}
		newEmail, ch.email = ch.email, ""
	}
	redirect := a.referrer(c, "")
	var out *user
	var mails []*emailToken
	err = a.tx(ctx, func(tx pgx.Tx) error {
		var err error
		out, mails, err = a.applyUserUpdate(ctx, tx, userUpdate{p: p, params: params, ch: ch, newEmail: newEmail,
			redirect: redirect, pkce: pkce, cl: cl})
		return err
	})
	if err != nil && newEmail != "" {
		a.mailUnused(ctx)
	}
	var refused *apierr.Error
	if errors.As(err, &refused) && refused.Code == codeReauthNotValid {
		// A wrong nonce counts against the one mailed, as a wrong emailed
		// code does on /verify (issue #26 item 5).
		a.otpFailed(ctx, p.user.Email, []string{ottReauthentication})
	}
	if errors.Is(err, errNotFound) {
		return errUserGone()
	}
	if err != nil {
		return err
	}
	for _, t := range mails {
		a.sendToken(ctx, mail.KindEmailChange, t, p.user.Email, newEmail)
	}
	return c.JSON(http.StatusOK, out)
}

// mergeMetadata applies a PUT /user data object: top-level keys replace,
// a null value removes the key.
func mergeMetadata(cur, patch map[string]any) map[string]any {
	out := make(map[string]any, len(cur)+len(patch))
	for k, v := range cur {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// userUpdate is a checked PUT /user.
type userUpdate struct {
	p        *principal
	params   userUpdateParams
	ch       *userChange
	newEmail string // a change to confirm by mail, or ""
	redirect string
	pkce     *pkceChallenge
	cl       client
}

// applyUserUpdate is PUT /user's transaction: the changes, the pending
// email change's tokens, the sessions a new password ends, the audit.
func (a *API) applyUserUpdate(ctx context.Context, tx pgx.Tx, r userUpdate) (*user, []*emailToken, error) {
	var mails []*emailToken
	now := a.now()
	// Lock the user so concurrent metadata merges do not lose keys.
	u, err := userByID(ctx, tx, r.p.user.ID, true)
	if err != nil {
		return nil, nil, err
	}
	if r.ch.passwordHash != "" {
		if err := a.checkNonce(ctx, tx, u, r.p.sessionID, r.params.Nonce, now); err != nil {
			return nil, nil, err
		}
	}
	modified, err := r.ch.apply(ctx, tx, u, now)
	if err != nil {
		return nil, nil, err
	}
	if r.newEmail != "" {
		if mails, err = a.startEmailChange(ctx, tx, u, r.newEmail, r.redirect, r.pkce, now); err != nil {
			return nil, nil, err
		}
		modified = true
	}
	if r.ch.passwordHash != "" {
		if r.p.sessionID != "" {
			err = deleteSessions(ctx, tx, u.ID, scopeOthers, r.p.sessionID)
		} else {
			err = deleteSessions(ctx, tx, u.ID, scopeGlobal, "")
		}
		if err != nil {
			return nil, nil, err
		}
		if err := insertAudit(ctx, tx, a.audit(u, actionUpdatedPassword, logUser, r.cl)); err != nil {
			return nil, nil, err
		}
	}
	if modified {
		if err := insertAudit(ctx, tx, a.audit(u, actionUserModified, logUser, r.cl)); err != nil {
			return nil, nil, err
		}
	}
	out, err := userByID(ctx, tx, u.ID, false)
	return out, mails, err
}
