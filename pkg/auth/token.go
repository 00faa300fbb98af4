package auth

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// token handles POST /token. grant_type is read from the query, where
// supabase-js puts it. An unknown grant is refused as GoTrue does (400
// invalid_credentials, message "unsupported_grant_type") before the rate
// limit is charged.
func (a *API) token(c *echo.Context) error {
	var grant func(*echo.Context) error
	switch c.QueryParam("grant_type") {
	case "password":
		grant = a.passwordGrant
	case "refresh_token":
		grant = a.refreshGrant
	case "pkce":
		grant = a.pkceGrant
	case "id_token":
		grant = a.idTokenGrant
	case "web3":
		grant = a.web3Grant
	default:
		return badRequest(codeInvalidCredentials, "unsupported_grant_type")
	}
	grantType := c.QueryParam("grant_type")
	if err := a.tokenLimit.check(c.Request().Context(), c.RealIP()); err != nil {
		if isTooMany(err) {
			a.logLimit(c.Request().Context(), "token", err)
		}
		a.observe(grantType, outcome(err))
		return err
	}
	err := grant(c)
	a.observe(grantType, outcome(err))
	return err
}

// outcome names how a grant ended, for Deps.Observe: ok, failed (the
// client's fault), reuse_detected, rate_limited or error (ours).
func outcome(err error) string {
	var e *apierr.Error
	switch {
	case err == nil:
		return "ok"
	case !errors.As(err, &e) || e.Status >= 500:
		return "error"
	case e.Status == http.StatusTooManyRequests:
		return "rate_limited"
	case e.Code == codeRefreshTokenUsed:
		return "reuse_detected"
	}
	return "failed"
}

type passwordGrantParams struct {
	Email    string `json:"email"`
	Phone    string `json:"phone"`
	Password string `json:"password"`
}

// passwordGrant signs a user in with email and password. Every failure
// that would tell an attacker something (no such user, wrong password,
// banned) is the same 400 invalid_credentials, and costs one bcrypt
// comparison either way.
func (a *API) passwordGrant(c *echo.Context) error {
	var p passwordGrantParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	email := strings.ToLower(strings.TrimSpace(p.Email))
	switch {
	case email != "" && p.Phone != "":
		return badRequest(codeValidationFailed, "Only an email address or phone number should be provided on login.")
	case email == "" && p.Phone != "":
		return unprocessable(codePhoneProviderDisabled, "Phone logins are disabled")
	case email == "":
		return badRequest(codeValidationFailed, "missing email or phone")
	case p.Password == "":
		return badRequest(codeValidationFailed, "missing password")
	}
	ctx := c.Request().Context()
	u, err := userByEmail(ctx, a.pool, email)
	switch {
	case errors.Is(err, errNotFound):
		a.passwordMatches("", p.Password)
		return errInvalidCredentials()
	case err != nil:
		return err
	}
	if !a.passwordMatches(u.passwordHash, p.Password) || u.banned(a.now()) {
		return errInvalidCredentials()
	}
	if u.EmailConfirmedAt == nil {
		return badRequest(codeEmailNotConfirmed, "Email not confirmed")
	}
	cl := clientOf(c)
	var resp *sessionResponse
	err = a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		if err := recordSignIn(ctx, tx, u.ID, now); err != nil {
			return err
		}
		fresh, err := userByID(ctx, tx, u.ID, false)
		if err != nil {
			return err
		}
		sid, refresh, err := createSession(ctx, tx, u.ID, now, cl, methodPassword)
		if err != nil {
			return err
		}
		e := a.audit(fresh, actionLogin, logAccount, cl)
		e.Traits = map[string]any{"provider": "email"}
		if err := insertAudit(ctx, tx, e); err != nil {
			return err
		}
		resp, err = a.issueSession(fresh, sid, refresh, methodPassword, now, now)
		return err
	})
	if errors.Is(err, errNotFound) {
		// Deleted between the password check and the transaction.
		return errInvalidCredentials()
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, resp)
}

type refreshGrantParams struct {
	RefreshToken string `json:"refresh_token"`
}

func errRefreshNotFound() error {
	return badRequest(codeRefreshTokenNotFound, "Invalid Refresh Token: Refresh Token Not Found")
}

// refreshGrant swaps a refresh token for a new session response.
//
// Tokens rotate: each use revokes the presented token and issues a child.
// All refreshes of one session are serialised on the session's row lock,
// so a token is rotated once however many requests present it at once, and
// a session never has two live tokens.
//
// A revoked token presented again within RefreshTokenReuseInterval of its
// revocation gets the session's current token back (no new child). That is
// what keeps racing tabs, or a client that lost a response, signed in.
// Later reuse looks like a stolen token: every token of the session is
// revoked and the answer is refresh_token_already_used.
// reusedRefresh handles a revoked refresh token presented again: within
// REFRESH_TOKEN_REUSE_INTERVAL it is the session's current token (a client
// retrying); after it, the whole session is revoked as stolen, and ""
// says so.
func (a *API) reusedRefresh(ctx context.Context, tx pgx.Tx, u *user, sess *session, rt *refreshToken, cl client, now time.Time) (string, error) {
	if now.Before(rt.UpdatedAt.Add(a.cfg.RefreshTokenReuseInterval)) {
		issued, err := activeRefreshToken(ctx, tx, sess.ID)
		if err != nil && !errors.Is(err, errNotFound) {
			return "", err
		}
		if issued != "" {
			return issued, nil
		}
	}
	if err := revokeSessionTokens(ctx, tx, sess.ID, now); err != nil {
		return "", err
	}
	e := a.audit(u, actionTokenRevoked, logToken, cl)
	e.Traits = map[string]any{"reason": "refresh_token_reuse", "session_id": sess.ID}
	if err := insertAudit(ctx, tx, e); err != nil {
		return "", err
	}
	a.log.WarnContext(ctx, "auth: refresh token reused after its reuse interval; session revoked",
		"user_id", u.ID, "session_id", sess.ID, "refresh_token_id", rt.ID, "ip", cl.IP)
	return "", nil
}

func (a *API) refreshGrant(c *echo.Context) error {
	var p refreshGrantParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if p.RefreshToken == "" {
		return badRequest(codeValidationFailed, "refresh_token required")
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	var resp *sessionResponse
	// reuseErr is returned after the transaction commits, so the family
	// revocation it reports is kept.
	var reuseErr error
	err := a.tx(ctx, func(tx pgx.Tx) error {
		first, err := refreshTokenByValue(ctx, tx, p.RefreshToken)
		if err != nil {
			return err
		}
		sess, err := sessionByID(ctx, tx, first.SessionID, true)
		if err != nil {
			return err
		}
		// Read the token again now that the lock is held: a refresh that
		// held it before us may have rotated it.
		rt, err := refreshTokenByValue(ctx, tx, p.RefreshToken)
		if err != nil {
			return err
		}
		now := a.now()
		if sess.NotAfter != nil && now.After(*sess.NotAfter) {
			return badRequest(codeSessionExpired, "Invalid Refresh Token: Session Expired")
		}
		u, err := userByID(ctx, tx, sess.UserID, false)
		if err != nil {
			return err
		}
		if u.banned(now) {
			return badRequest(codeUserBanned, "Invalid Refresh Token: User Banned")
		}
		var issued string
		if rt.Revoked {
			if issued, err = a.reusedRefresh(ctx, tx, u, sess, rt, cl, now); err != nil {
				return err
			}
			if issued == "" {
				reuseErr = badRequest(codeRefreshTokenUsed, "Invalid Refresh Token: Already Used")
				return nil
			}
		} else {
			if err := revokeRefreshToken(ctx, tx, rt.ID, now); err != nil {
				return err
			}
			if issued, err = insertRefreshToken(ctx, tx, u.ID, sess.ID, rt.Token, now); err != nil {
				return err
			}
		}
		if err := touchSession(ctx, tx, sess.ID, now, cl); err != nil {
			return err
		}
		if err := insertAudit(ctx, tx, a.audit(u, actionTokenRefreshed, logToken, cl)); err != nil {
			return err
		}
		resp, err = a.issueRefreshed(ctx, tx, u, sess, issued, now)
		return err
	})
	if errors.Is(err, errNotFound) {
		// No such token, or its session or user was deleted (logout).
		return errRefreshNotFound()
	}
	if err != nil {
		return err
	}
	if reuseErr != nil {
		return reuseErr
	}
	return c.JSON(http.StatusOK, resp)
}
