package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
)

// TOTP two-factor authentication, as GoTrue's /factors: enrol an
// authenticator app (POST /factors), challenge it, verify a code, which
// raises the session to aal2 with a new access token, and unenrol it.
// Phone and WebAuthn factors answer as GoTrue does when they are disabled.
//
// Beyond GoTrue: a code is accepted once (each factor remembers the last
// time step it accepted), so a code read over a shoulder cannot open a
// second session.

// GoTrue's MFA error codes.
const (
	codeTooManyFactors            = "too_many_enrolled_mfa_factors"
	codeMFAFactorNameConflict     = "mfa_factor_name_conflict"
	codeMFAFactorNotFound         = "mfa_factor_not_found"
	codeMFAIPAddressMismatch      = "mfa_ip_address_mismatch"
	codeMFAChallengeExpired       = "mfa_challenge_expired"
	codeMFAVerificationFailed     = "mfa_verification_failed"
	codeInsufficientAAL           = "insufficient_aal"
	codeMFAPhoneEnrollDisabled    = "mfa_phone_enroll_not_enabled"
	codeMFAWebAuthnEnrollDisabled = "mfa_webauthn_enroll_not_enabled"
)

// GoTrue's defaults for GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION,
// _FACTOR_EXPIRY_DURATION, _MAX_ENROLLED_FACTORS and _MAX_VERIFIED_FACTORS.
const (
	mfaChallengeExpiry    = 300 * time.Second
	mfaFactorExpiry       = 300 * time.Second
	mfaMaxEnrolledFactors = 10
	mfaMaxVerifiedFactors = 10
	// maxFactorText bounds friendly_name and issuer (bytes): the name is
	// in a unique index and both go into the QR code, which holds only so
	// much; GoTrue has no bound and fails with a 500 there.
	maxFactorText = 255
)

// GoTrue's audit actions and log type for factors.
const (
	actionFactorEnrolled        = "factor_in_progress"
	actionFactorUnenrolled      = "factor_unenrolled"
	actionChallengeCreated      = "challenge_created"
	actionVerificationAttempted = "verification_attempted"
	actionFactorDeleted         = "factor_deleted"
	logFactor                   = "factor"
)

// mfaLimits are GoTrue's two MFA rate limits, per client IP: challenges
// and verifications, each MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY a minute.
type mfaLimits struct {
	challenge, verify *limiter
}

func newMFALimits(m limitMaker, cfg *config.Config) mfaLimits {
	return mfaLimits{challenge: m.make("mfa_challenge", cfg.RateLimitMFA), verify: m.make("mfa_verify", cfg.RateLimitMFA)}
}

func errFactorNameConflict(name string) *apierr.Error {
	return unprocessable(codeMFAFactorNameConflict, "A factor with the friendly name %q for this user already exists", name)
}

func errFactorNotFound() error {
	return apierr.New(http.StatusNotFound, codeMFAFactorNotFound, "Factor not found")
}

func errChallengeNotFound() error {
	return unprocessable(codeMFAFactorNotFound, "MFA factor with the provided challenge ID not found")
}

// mfaCaller is the signed-in user of a /factors call, in a session.
type mfaCaller struct {
	user      *user
	sessionID string
	aal       string // the session's, as auth.sessions records it
}

// mfaAuthenticate checks the bearer token as /user does, and that it
// belongs to a session of a user who is not anonymous: factors raise a
// session, so a token without one cannot use them.
func (a *API) mfaAuthenticate(c *echo.Context) (*mfaCaller, error) {
	p, err := a.authenticate(c)
	if err != nil {
		return nil, err
	}
	if p.user.IsAnonymous {
		return nil, forbidden(codeNoAuthorization, "Anonymous user not allowed to perform these actions")
	}
	if p.sessionID == "" {
		return nil, forbidden(codeSessionNotFound, "A valid session is required to manage MFA factors")
	}
	aal, err := sessionAAL(c.Request().Context(), a.pool, p.sessionID)
	if errors.Is(err, errNotFound) {
		return nil, forbidden(codeSessionNotFound, "Session from session_id claim in JWT does not exist")
	}
	if err != nil {
		return nil, err
	}
	return &mfaCaller{user: p.user, sessionID: p.sessionID, aal: aal}, nil
}

// loadFactor reads {factor_id}, which must be one of userID's factors.
func (a *API) loadFactor(c *echo.Context, userID string) (*factor, error) {
	id := c.Param("factor_id")
	if !uuidRE.MatchString(id) {
		return nil, apierr.New(http.StatusNotFound, codeValidationFailed, "factor_id must be an UUID")
	}
	f, err := factorOf(c.Request().Context(), a.pool, userID, strings.ToLower(id), false)
	if errors.Is(err, errNotFound) {
		return nil, errFactorNotFound()
	}
	return f, err
}

type enrollParams struct {
	FriendlyName string `json:"friendly_name"`
	FactorType   string `json:"factor_type"`
	Issuer       string `json:"issuer"`
	Phone        string `json:"phone"`
}

type totpEnrollment struct {
	QRCode string `json:"qr_code"`
	Secret string `json:"secret"`
	URI    string `json:"uri"`
}

type enrollResponse struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	FriendlyName string         `json:"friendly_name"`
	TOTP         totpEnrollment `json:"totp"`
}

// enrollFactor handles POST /factors: a new, unverified TOTP factor with
// its secret, otpauth:// URI and QR code (raw SVG, as GoTrue sends it).
// Once a user has a verified factor, only an aal2 session may add another.
func (a *API) enrollFactor(c *echo.Context) error {
	caller, err := a.mfaAuthenticate(c)
	if err != nil {
		return err
	}
	var p enrollParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	switch p.FactorType {
	case factorTypeTOTP:
	case "phone":
		return unprocessable(codeMFAPhoneEnrollDisabled, "MFA enroll is disabled for Phone")
	case "webauthn":
		return unprocessable(codeMFAWebAuthnEnrollDisabled, "MFA enroll is disabled for WebAuthn")
	default:
		return badRequest(codeValidationFailed, "factor_type needs to be totp, phone, or webauthn")
	}
	if len(p.FriendlyName) > maxFactorText || len(p.Issuer) > maxFactorText {
		return badRequest(codeValidationFailed, "friendly_name and issuer must be at most %d bytes", maxFactorText)
	}
	issuer := p.Issuer
	if issuer == "" {
		if u, err := url.Parse(a.cfg.SiteURL); err == nil {
			issuer = u.Host
		}
	}
	account := caller.user.Email
	if account == "" {
		account = caller.user.ID
	}
	key, err := newTOTPKey(issuer, account)
	if err != nil {
		return badRequest(codeValidationFailed, "Invalid issuer").WithCause(err)
	}
	svg, err := qrSVG(key.String())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	now := a.now()
	f := &factor{userID: caller.user.ID, FriendlyName: p.FriendlyName, FactorType: factorTypeTOTP,
		Status: factorUnverified, CreatedAt: now, UpdatedAt: now, secret: key.Secret()}
	cl := clientOf(c)
	err = a.tx(ctx, func(tx pgx.Tx) error {
		if err := a.checkNewFactor(ctx, tx, caller, p.FriendlyName, now); err != nil {
			return err
		}
		if err := insertFactor(ctx, tx, f); err != nil {
			return err
		}
		e := a.audit(caller.user, actionFactorEnrolled, logFactor, cl)
		e.Traits = map[string]any{"factor_id": f.ID}
		return insertAudit(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, enrollResponse{ID: f.ID, Type: factorTypeTOTP, FriendlyName: f.FriendlyName,
		TOTP: totpEnrollment{QRCode: svg, Secret: key.Secret(), URI: key.String()}})
}

// checkNewFactor applies GoTrue's rules for a new factor, under the user's
// row lock: abandoned setups are dropped first, then the name must be
// free, the limits not reached, and an aal2 session is needed once a
// factor is verified (else a stolen password could add the thief's app).
func (a *API) checkNewFactor(ctx context.Context, tx pgx.Tx, caller *mfaCaller, name string, now time.Time) error {
	if err := lockUser(ctx, tx, caller.user.ID); err != nil {
		return err
	}
	if err := deleteExpiredFactors(ctx, tx, caller.user.ID, now, mfaFactorExpiry); err != nil {
		return err
	}
	fs, err := factorsOf(ctx, tx, caller.user.ID)
	if err != nil {
		return err
	}
	verified := 0
	for _, f := range fs {
		if name != "" && f.FriendlyName == name {
			return errFactorNameConflict(name)
		}
		if f.verified() {
			verified++
		}
	}
	if len(fs) >= mfaMaxEnrolledFactors || verified >= mfaMaxVerifiedFactors {
		return unprocessable(codeTooManyFactors, "Maximum number of verified factors reached, unenroll to continue")
	}
	if verified > 0 && caller.aal != "aal2" {
		return forbidden(codeInsufficientAAL, "AAL2 required to enroll a new factor")
	}
	return nil
}

type challengeResponse struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	ExpiresAt int64  `json:"expires_at"`
}

// challengeFactor handles POST /factors/{id}/challenge: a challenge that
// a code can answer from the same address for mfaChallengeExpiry.
func (a *API) challengeFactor(c *echo.Context) error {
	caller, err := a.mfaAuthenticate(c)
	if err != nil {
		return err
	}
	f, err := a.loadFactor(c, caller.user.ID)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := a.limitIP(ctx, a.mfa.challenge, "mfa_challenge", c.RealIP()); err != nil {
		return err
	}
	now := a.now()
	cl := clientOf(c)
	var id string
	err = a.tx(ctx, func(tx pgx.Tx) error {
		if id, err = insertChallenge(ctx, tx, f, cl.IP, now); err != nil {
			return err
		}
		e := a.audit(caller.user, actionChallengeCreated, logFactor, cl)
		e.Traits = map[string]any{"factor_id": f.ID, "factor_status": f.Status}
		return insertAudit(ctx, tx, e)
	})
	if errors.Is(err, errNotFound) {
		return errFactorNotFound()
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, challengeResponse{ID: id, Type: f.FactorType, ExpiresAt: now.Add(mfaChallengeExpiry).Unix()})
}

type verifyFactorParams struct {
	ChallengeID string `json:"challenge_id"`
	Code        string `json:"code"`
}

// verifyFactor handles POST /factors/{id}/verify. A right code for an
// open challenge verifies the factor (the end of its setup), raises the
// caller's session to aal2 and answers with a new session (access token
// with aal2 and a totp amr entry, rotated refresh token), which supabase-js
// stores and announces as MFA_CHALLENGE_VERIFIED. As GoTrue does, the
// user's other aal1 sessions end and abandoned setups are dropped.
func (a *API) verifyFactor(c *echo.Context) error {
	caller, err := a.mfaAuthenticate(c)
	if err != nil {
		return err
	}
	f, err := a.loadFactor(c, caller.user.ID)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if err := a.limitIP(ctx, a.mfa.verify, "mfa_verify", c.RealIP()); err != nil {
		return err
	}
	var p verifyFactorParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if p.Code == "" {
		return badRequest(codeValidationFailed, "Code needs to be non-empty")
	}
	if !uuidRE.MatchString(p.ChallengeID) {
		return errChallengeNotFound()
	}
	cl := clientOf(c)
	var resp *sessionResponse
	// refused is returned after the transaction commits, so that an
	// expired challenge's deletion is kept.
	var refused error
	err = a.tx(ctx, func(tx pgx.Tx) error {
		var err error
		resp, refused, err = a.checkFactorCode(ctx, tx, caller, f.ID, p, cl)
		return err
	})
	if errors.Is(err, errNotFound) {
		// The factor or the user went away meanwhile.
		return errFactorNotFound()
	}
	if err != nil && !errors.Is(err, errStepUsed) {
		return err
	}
	if refused != nil {
		return refused
	}
	return c.JSON(http.StatusOK, resp)
}

// raise records a passed challenge: the challenge and factor are
// verified, the session becomes aal2, the user's aal1 sessions and
// unfinished setups of the same type go, and the audit log says so.
func (a *API) raise(ctx context.Context, tx pgx.Tx, caller *mfaCaller, f *factor, ch *challenge, step int64, cl client, now time.Time) error {
	if err := consumeChallenge(ctx, tx, ch, step, now); err != nil {
		return err
	}
	if err := raiseSession(ctx, tx, caller.sessionID, f, now); err != nil {
		return err
	}
	if err := dropWeakerSessions(ctx, tx, caller.user.ID, caller.sessionID); err != nil {
		return err
	}
	if err := deleteUnverifiedFactors(ctx, tx, caller.user.ID, f.FactorType); err != nil {
		return err
	}
	e := a.audit(caller.user, actionVerificationAttempted, logFactor, cl)
	e.Traits = map[string]any{"factor_id": f.ID, "challenge_id": ch.ID, "factor_type": f.FactorType}
	return insertAudit(ctx, tx, e)
}

// unenrollFactor handles DELETE /factors/{id}. Removing a verified factor
// takes an aal2 session (422 insufficient_aal otherwise, GoTrue's status);
// the sessions it raised drop back to aal1.
func (a *API) unenrollFactor(c *echo.Context) error {
	caller, err := a.mfaAuthenticate(c)
	if err != nil {
		return err
	}
	f, err := a.loadFactor(c, caller.user.ID)
	if err != nil {
		return err
	}
	if f.verified() && caller.aal != "aal2" {
		return unprocessable(codeInsufficientAAL, "AAL2 required to unenroll verified factor")
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	err = a.tx(ctx, func(tx pgx.Tx) error {
		if err := deleteFactor(ctx, tx, f, a.now()); err != nil {
			return err
		}
		e := a.audit(caller.user, actionFactorUnenrolled, logFactor, cl)
		e.Traits = map[string]any{"factor_id": f.ID, "factor_status": f.Status, "session_id": caller.sessionID}
		return insertAudit(ctx, tx, e)
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"id": f.ID})
}
