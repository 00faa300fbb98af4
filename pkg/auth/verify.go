package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// GET and POST /verify redeem the one-time tokens of every email flow
// (onetime.go): signup and invite confirm the address, magiclink and
// recovery sign in, email_change moves the address, and "email" accepts
// either a confirmation or a magic-link code, as GoTrue's do.

// singleConfirmationAccepted is GoTrue's answer to the first of the two
// confirmations of a secure email change.
const singleConfirmationAccepted = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

// oauthErrors is the OAuth error name GoTrue puts beside an error code in
// a redirect, by HTTP status.
var oauthErrors = map[int]string{
	http.StatusBadRequest: "invalid_request", http.StatusUnauthorized: "unauthorized_client",
	http.StatusForbidden: "access_denied", http.StatusInternalServerError: "server_error",
	http.StatusServiceUnavailable: "temporarily_unavailable",
}

// verifyGet handles GET /verify?type=…&token=…&redirect_to=…, the link in
// a mail, which a browser opens without an API key. Every outcome is a 303
// to the site: the session (or GoTrue's error triple) rides in the URL
// fragment, where supabase-js's detectSessionInUrl picks it up. A token of
// the PKCE flow redirects with ?code= instead (errors in the query too),
// which only the browser holding the verifier can exchange.
func (a *API) verifyGet(c *echo.Context) error {
	typ, tok := c.QueryParam("type"), c.QueryParam("token")
	if typ == "" {
		return badRequest(codeValidationFailed, "Verify requires a verification type")
	}
	if tok == "" {
		return badRequest(codeValidationFailed, "Verify requires a token or a token hash")
	}
	ctx := c.Request().Context()
	if err := a.limitIP(ctx, a.verifyLimit, "verify", c.RealIP()); err != nil {
		return err
	}
	target := a.referrer(c, "")
	pkce := strings.HasPrefix(tok, pkcePrefix)
	res, err := a.redeem(ctx, typ, storedHash(strings.TrimPrefix(tok, pkcePrefix)), "", clientOf(c), true)
	c.Response().Header().Set("Cache-Control", "no-store")
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae) && ae.Status < 500:
		return c.Redirect(http.StatusSeeOther, errorRedirect(target, ae, pkce))
	case err != nil:
		return err
	case res.single:
		q := url.Values{"message": {singleConfirmationAccepted}}
		if pkce {
			target = withQuery(target, q)
		}
		return c.Redirect(http.StatusSeeOther, target+"#"+q.Encode())
	case res.code != "":
		return c.Redirect(http.StatusSeeOther, withQuery(target, url.Values{"code": {res.code}}))
	}
	frag := url.Values{}
	frag.Set("access_token", res.session.AccessToken)
	frag.Set("expires_at", strconv.FormatInt(res.session.ExpiresAt, 10))
	frag.Set("expires_in", strconv.FormatInt(res.session.ExpiresIn, 10))
	frag.Set("refresh_token", res.session.RefreshToken)
	frag.Set("token_type", "bearer")
	frag.Set("type", res.typ)
	return c.Redirect(http.StatusSeeOther, target+"#"+frag.Encode())
}

// errorRedirect puts GoTrue's error triple into target's fragment (and,
// for the PKCE flow, its query, which server-side handlers read).
func errorRedirect(target string, e *apierr.Error, pkce bool) string {
	q := url.Values{}
	if name, ok := oauthErrors[e.Status]; ok {
		q.Set("error", name)
	}
	q.Set("error_code", e.Code)
	q.Set("error_description", e.Message)
	if pkce {
		target = withQuery(target, q)
	}
	return target + "#" + q.Encode()
}

// withQuery adds q to target's query string.
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
	Type       string `json:"type"`
	TokenHash  string `json:"token_hash"`
	Token      string `json:"token"`
	Email      string `json:"email"`
	Phone      string `json:"phone"`
	RedirectTo string `json:"redirect_to"`
}

// verifyPost handles POST /verify, which supabase-js's verifyOtp sends:
// {type, token_hash} with the token of a link, or {type, email, token}
// with the six-digit code. The answer is a session.
func (a *API) verifyPost(c *echo.Context) error {
	var p verifyParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if p.Type == "" {
		return badRequest(codeValidationFailed, "Verify requires a verification type")
	}
	if (p.Token == "") == (p.TokenHash == "") {
		return badRequest(codeValidationFailed, "Verify requires either a token or a token hash")
	}
	hash, relatesTo, invalid := p.TokenHash, "", msgLinkInvalid
	switch {
	case p.TokenHash != "":
		if p.Email != "" || p.Phone != "" || p.RedirectTo != "" {
			return badRequest(codeValidationFailed, "Only the token_hash and type should be provided")
		}
		hash = storedHash(strings.TrimPrefix(hash, pkcePrefix))
	case p.Phone != "" && p.Email == "":
		// The phone provider is off: no user has a phone to verify.
		if err := a.limitIP(c.Request().Context(), a.verifyLimit, "verify", c.RealIP()); err != nil {
			return err
		}
		return forbidden(codeOTPExpired, msgTokenInvalid)
	case p.Email != "" && p.Phone == "":
		email, err := normaliseEmail(p.Email)
		if err != nil {
			return unprocessable(codeValidationFailed, "Invalid email format").WithCause(err)
		}
		hash, relatesTo, invalid = storedHash(a.linkToken(email, strings.ReplaceAll(p.Token, "-", ""))), email, msgTokenInvalid
	default:
		return badRequest(codeValidationFailed, "Only an email address or phone number should be provided on verify")
	}
	ctx := c.Request().Context()
	if err := a.limitIP(ctx, a.verifyLimit, "verify", c.RealIP()); err != nil {
		return err
	}
	res, err := a.redeem(ctx, p.Type, hash, relatesTo, clientOf(c), false)
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == codeOTPExpired {
		if relatesTo != "" {
			a.otpFailed(ctx, relatesTo, tokenTypesFor[p.Type])
		}
		return forbidden(codeOTPExpired, "%s", invalid)
	}
	if err != nil {
		return err
	}
	if res.single {
		return c.JSON(http.StatusOK, map[string]string{"msg": singleConfirmationAccepted, "code": "200"})
	}
	return c.JSON(http.StatusOK, res.session)
}

// redeemed is what a token gave: a session, a PKCE auth code, or (first
// half of a secure email change) nothing yet.
type redeemed struct {
	session *sessionResponse
	code    string
	single  bool
	// typ is the verification type that applied ("email" resolves to
	// signup or magiclink), for the redirect's fragment.
	typ string
}

// redeem takes the token (by its stored hash) of verification type typ (sent to relatesTo
// when that is set) and applies it. pkce allows a PKCE token to yield its
// flow state's auth code (the link); otherwise every token yields a
// session, amr "otp", as GoTrue does.
func (a *API) redeem(ctx context.Context, typ, hash, relatesTo string, cl client, pkce bool) (*redeemed, error) {
	types, ok := tokenTypesFor[typ]
	if !ok {
		return nil, badRequest(codeValidationFailed, "Unsupported verification type")
	}
	out := &redeemed{typ: typ}
	err := a.tx(ctx, func(tx pgx.Tx) error {
		now := a.now()
		userID, ttype, isPKCE, err := takeToken(ctx, tx, hash, types, relatesTo, now.Add(-a.cfg.MailerOTPExp))
		if errors.Is(err, errNotFound) {
			return forbidden(codeOTPExpired, msgLinkInvalid)
		}
		if err != nil {
			return err
		}
		u, err := userByID(ctx, tx, userID, true)
		if errors.Is(err, errNotFound) {
			return forbidden(codeOTPExpired, msgLinkInvalid)
		}
		if err != nil {
			return err
		}
		if u.banned(now) {
			return forbidden(codeUserBanned, "User is banned")
		}
		if typ == vtEmail {
			out.typ = vtMagicLink
			if ttype == ottConfirmation {
				out.typ = vtSignup
			}
		}
		switch out.typ {
		case vtSignup, vtInvite, vtRecovery, vtMagicLink:
			action := actionLogin
			if u.EmailConfirmedAt == nil {
				action = actionSignedUp
				if err := confirmEmail(ctx, tx, u.ID, now); err != nil {
					return err
				}
			}
			e := a.audit(u, action, logAccount, cl)
			e.Traits = map[string]any{"provider": "email", "method": out.typ}
			if err := insertAudit(ctx, tx, e); err != nil {
				return err
			}
		case vtEmailChange:
			done, err := a.confirmEmailChange(ctx, tx, u, ttype, cl, now)
			if err != nil {
				return err
			}
			if !done {
				out.single = true
				return nil
			}
		}
		if isPKCE && pkce {
			out.code, err = issueAuthCode(ctx, tx, u.ID, methodFor(out.typ), now)
			if errors.Is(err, errFlowStateNotFound) {
				return badRequest(codeFlowStateNotFound, "No associated flow state found.")
			}
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
		out.session, err = a.issueSession(u, sid, refresh, methodOTP, now, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
