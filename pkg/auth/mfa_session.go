package auth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// issueRefreshed signs the access token of a refreshed session. A session
// that passed a second factor keeps aal2 and its amr of every method
// (auth.mfa_amr_claims), as GoTrue's refresh does; any other session
// keeps the one method it began with.
func (a *API) issueRefreshed(ctx context.Context, q dbtx, u *user, sess *session, refresh string, now time.Time) (*sessionResponse, error) {
	aal, amr, err := sessionClaims(ctx, q, sess.ID)
	if err != nil {
		return nil, err
	}
	if aal != "aal2" {
		return a.issueSession(u, sess.ID, refresh, sess.Method, sess.CreatedAt, now)
	}
	return a.issueSessionAt(u, sess.ID, refresh, aal, amr, now)
}

// issueRaised signs the access token of a session a second factor has
// just raised to aal2, with a fresh refresh token: the session's live one
// is revoked (a client that lost the response may still swap it within
// the reuse interval) and a child issued.
func (a *API) issueRaised(ctx context.Context, q dbtx, u *user, sessionID string, now time.Time) (*sessionResponse, error) {
	parent, err := activeRefreshToken(ctx, q, sessionID)
	if err != nil && !errors.Is(err, errNotFound) {
		return nil, err
	}
	if err := revokeSessionTokens(ctx, q, sessionID, now); err != nil {
		return nil, err
	}
	refresh, err := insertRefreshToken(ctx, q, u.ID, sessionID, parent, now)
	if err != nil {
		return nil, err
	}
	aal, amr, err := sessionClaims(ctx, q, sessionID)
	if err != nil {
		return nil, err
	}
	return a.issueSessionAt(u, sessionID, refresh, aal, amr, now)
}

// requireAAL2ForCredentials is GoTrue's rule for PUT /user: once a user
// has a verified factor, changing the password or the email takes a
// session that passed it, or a stolen password alone could lock the owner
// out (a new password ends their sessions).
func (a *API) requireAAL2ForCredentials(ctx context.Context, p *principal, changes bool) error {
	if !changes || !slices.ContainsFunc(p.user.Factors, func(f factor) bool { return f.verified() }) {
		return nil
	}
	aal := "aal1"
	if p.sessionID != "" {
		var err error
		if aal, err = sessionAAL(ctx, a.pool, p.sessionID); err != nil && !errors.Is(err, errNotFound) {
			return err
		}
	}
	if aal != "aal2" {
		return apierr.New(http.StatusUnauthorized, codeInsufficientAAL, "AAL2 session is required to update email or password when MFA is enabled.")
	}
	return nil
}
