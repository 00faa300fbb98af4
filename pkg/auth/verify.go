package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"
)

// verifyGet handles GET /verify?type=recovery&token=…&redirect_to=…, the
// link in the mail. Success and failure are both a 303 to the site: the
// session (or GoTrue's error triple) rides in the URL fragment, where
// supabase-js's detectSessionInUrl picks it up and emits PASSWORD_RECOVERY.
// A link of the PKCE flow redirects with ?code= instead (errors in the
// query too), which the browser holding the verifier exchanges.
func (a *API) verifyGet(c *echo.Context) error {
	if c.QueryParam("type") != "recovery" {
		return badRequest(codeValidationFailed, "Unsupported verification type")
	}
	tok := c.QueryParam("token")
	if tok == "" {
		return badRequest(codeValidationFailed, "Verify requires a token or a token hash")
	}
	if err := a.tokenLimit.check(c.Request().Context(), c.RealIP()); err != nil {
		return err
	}
	target := a.redirectTarget(c.QueryParam("redirect_to"))
	resp, code, err := a.redeemRecovery(c.Request().Context(), tok, clientOf(c), true)
	c.Response().Header().Set("Cache-Control", "no-store")
	if code != "" || errors.Is(err, errFlowStateNotFound) {
		q := url.Values{}
		if code != "" {
			q.Set("code", code)
		} else {
			q.Set("error", "access_denied")
			q.Set("error_code", codeFlowStateNotFound)
			q.Set("error_description", "No associated flow state found.")
		}
		return c.Redirect(http.StatusSeeOther, withQuery(target, q))
	}
	frag := url.Values{}
	switch {
	case errors.Is(err, errNotFound):
		frag.Set("error", "access_denied")
		frag.Set("error_code", codeOTPExpired)
		frag.Set("error_description", msgLinkInvalid)
	case err != nil:
		return err
	default:
		frag.Set("access_token", resp.AccessToken)
		frag.Set("expires_at", strconv.FormatInt(resp.ExpiresAt, 10))
		frag.Set("expires_in", strconv.FormatInt(resp.ExpiresIn, 10))
		frag.Set("refresh_token", resp.RefreshToken)
		frag.Set("token_type", "bearer")
		frag.Set("type", "recovery")
	}
	return c.Redirect(http.StatusSeeOther, target+"#"+frag.Encode())
}

// withQuery adds q to target's query string (target is the site or a URL
// on it, checked by redirectTarget).
func withQuery(target string, q url.Values) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	v := u.Query()
	for k, vals := range q {
		v[k] = vals
	}
	u.RawQuery = v.Encode()
	return u.String()
}

type verifyParams struct {
	Type      string `json:"type"`
	TokenHash string `json:"token_hash"`
	Token     string `json:"token"`
	Email     string `json:"email"`
}

// verifyPost handles POST /verify, which supabase-js's verifyOtp sends:
// {type: "recovery", token_hash} with the token of the link answers with
// a session. Six-digit email codes are not issued, so {email, token} is
// always refused as an invalid code.
func (a *API) verifyPost(c *echo.Context) error {
	var p verifyParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if p.Type != "recovery" {
		return badRequest(codeValidationFailed, "Unsupported verification type")
	}
	if p.TokenHash == "" && p.Token == "" {
		return badRequest(codeValidationFailed, "Verify requires a token or a token hash")
	}
	if err := a.tokenLimit.check(c.Request().Context(), c.RealIP()); err != nil {
		return err
	}
	if p.TokenHash == "" {
		return forbidden(codeOTPExpired, "Token has expired or is invalid")
	}
	resp, _, err := a.redeemRecovery(c.Request().Context(), p.TokenHash, clientOf(c), false)
	if errors.Is(err, errNotFound) {
		return forbidden(codeOTPExpired, "Token has expired or is invalid")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, resp)
}

// redeemRecovery takes a recovery token (once) and confirms the email it
// was mailed to. A token of the PKCE flow, when pkce allows it, gets its
// flow state's one-time code (errFlowStateNotFound if the flow state is
// gone); any other starts a session (amr "otp", as GoTrue). Unknown, used,
// expired tokens and banned members are all errNotFound.
func (a *API) redeemRecovery(ctx context.Context, tok string, cl client, pkce bool) (*sessionResponse, string, error) {
	if len(tok) > 200 {
		return nil, "", errNotFound
	}
	var resp *sessionResponse
	var code string
	err := a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		u, isPKCE, err := takeRecoveryToken(ctx, tx, hashRecoveryToken(tok), now.Add(-a.cfg.MailerOTPExp))
		if err != nil {
			return err
		}
		if u.banned(now) {
			return errNotFound
		}
		if u.EmailConfirmedAt == nil {
			if err := setEmailConfirmed(ctx, tx, u.ID, true, now); err != nil {
				return err
			}
		}
		if isPKCE && pkce {
			code, err = issueAuthCode(ctx, tx, u.ID, now)
			return err
		}
		if err := recordSignIn(ctx, tx, u.ID, now); err != nil {
			return err
		}
		if u, err = userByID(ctx, tx, u.ID, false); err != nil {
			return err
		}
		sid, refresh, err := createSession(ctx, tx, u.ID, now, cl, methodOTP)
		if err != nil {
			return err
		}
		e := a.audit(u, actionLogin, logAccount, cl)
		e.Traits = map[string]any{"provider": "email", "method": "recovery"}
		if err := insertAudit(ctx, tx, e); err != nil {
			return err
		}
		resp, err = a.issueSession(u, sid, refresh, methodOTP, now, now)
		return err
	})
	return resp, code, err
}
