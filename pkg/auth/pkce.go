package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// PKCE for account recovery, as GoTrue runs it. supabase-js with
// flowType 'pkce' sends a code challenge with /recover and keeps the
// verifier in the browser that asked. The mailed link goes to /verify as
// before, but /verify then redirects with ?code= instead of a session, and
// only the browser holding the verifier can exchange that code for a
// session (POST /token?grant_type=pkce). A link forwarded to, or
// intercepted by, someone else is useless without the verifier.
//
// The flow state is made at /recover and bound to the member; /verify
// issues its one-time auth code, which must be exchanged within
// flowStateExpiry (GoTrue's default for the code) and works once.

// Session methods (GoTrue's amr values).
const (
	methodPassword = "password"
	// methodOTP is what GoTrue records for any session from a mailed link
	// redeemed without PKCE (implicit /verify and POST /verify).
	methodOTP = "otp"
	// methodRecovery is the flow's method, recorded at the PKCE exchange.
	methodRecovery = "recovery"
)

const (
	codeFlowStateNotFound = "flow_state_not_found"
	codeFlowStateExpired  = "flow_state_expired"
	codeBadCodeVerifier   = "bad_code_verifier"
)

// flowStateExpiry bounds the time between /verify issuing an auth code
// and its exchange.
const flowStateExpiry = 5 * time.Minute

var errFlowStateNotFound = errors.New("auth: no flow state")

// pkceChallenge is a validated code_challenge and its method.
type pkceChallenge struct {
	challenge, method string
}

// parseChallenge checks /recover's PKCE parameters: both or neither, a
// known method, RFC 7636's length. It returns nil for the implicit flow.
func parseChallenge(challenge, method string) (*pkceChallenge, error) {
	if challenge == "" && method == "" {
		return nil, nil
	}
	if challenge == "" || method == "" {
		return nil, badRequest(codeValidationFailed, "PKCE flow requires code_challenge_method and code_challenge")
	}
	m := strings.ToLower(method)
	if m != "s256" && m != "plain" {
		return nil, badRequest(codeValidationFailed, "code challenge method not supported")
	}
	if n := len(challenge); n < 43 || n > 128 {
		return nil, badRequest(codeValidationFailed, "code challenge has to be between 43 and 128 characters")
	}
	return &pkceChallenge{challenge: challenge, method: m}, nil
}

// verifies reports whether verifier answers the challenge (in constant
// time, as a comparison of secrets).
func (p *pkceChallenge) verifies(verifier string) bool {
	want := verifier
	if p.method == "s256" {
		sum := sha256.Sum256([]byte(verifier))
		want = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(p.challenge)) == 1
}

// methodFor is GoTrue's authentication method of a verification type,
// recorded on the flow state and, at the exchange, as the session's amr.
func methodFor(verifyType string) string {
	switch verifyType {
	case vtSignup:
		return "email/signup"
	case vtInvite:
		return "invite"
	case vtMagicLink, vtEmail:
		return "magiclink"
	case vtEmailChange:
		return "email_change"
	}
	return methodRecovery
}

type pkceGrantParams struct {
	AuthCode     string `json:"auth_code"`
	CodeVerifier string `json:"code_verifier"`
}

// pkceGrant handles POST /token?grant_type=pkce: the auth code from the
// redirect and the verifier the browser kept become a session. The code
// works once; a wrong verifier leaves it in place (the verifier has 256
// bits, so guessing is not a concern) as GoTrue does.
func (a *API) pkceGrant(c *echo.Context) error {
	var p pkceGrantParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if p.AuthCode == "" || p.CodeVerifier == "" {
		return badRequest(codeValidationFailed, "invalid request: both auth code and code verifier should be non-empty")
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	var resp *sessionResponse
	var refusal error
	err := a.tx(ctx, func(tx pgx.Tx) error {
		fs, err := flowStateByCode(ctx, tx, p.AuthCode)
		if err != nil {
			return err
		}
		id, userID, method, ch := fs.id, fs.userID, fs.method, &fs.challenge
		now := a.now()
		if fs.issued == nil || now.After(fs.issued.Add(flowStateExpiry)) {
			if err := deleteFlowState(ctx, tx, id); err != nil {
				return err
			}
			refusal = apierr.New(http.StatusUnprocessableEntity, codeFlowStateExpired, "invalid flow state, flow state has expired")
			return nil
		}
		if !ch.verifies(p.CodeVerifier) {
			refusal = badRequest(codeBadCodeVerifier, "code challenge does not match previously saved code verifier")
			return nil
		}
		if err := deleteFlowState(ctx, tx, id); err != nil {
			return err
		}
		u, err := userByID(ctx, tx, userID, true)
		if err != nil {
			return err
		}
		if u.banned(now) {
			return errNotFound
		}
		if err := recordSignIn(ctx, tx, u.ID, now); err != nil {
			return err
		}
		if u, err = userByID(ctx, tx, u.ID, false); err != nil {
			return err
		}
		sid, refresh, err := createSession(ctx, tx, u.ID, now, cl, method)
		if err != nil {
			return err
		}
		e := a.audit(u, actionLogin, logAccount, cl)
		e.Traits = map[string]any{"provider_type": method}
		if err := insertAudit(ctx, tx, e); err != nil {
			return err
		}
		resp, err = a.issueSession(u, sid, refresh, method, now, now)
		return err
	})
	switch {
	case errors.Is(err, errNotFound):
		return apierr.New(http.StatusNotFound, codeFlowStateNotFound, "invalid flow state, no valid flow state found")
	case err != nil:
		return err
	case refusal != nil:
		return refusal
	}
	return c.JSON(http.StatusOK, resp)
}
