package auth

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The transaction of a TOTP verification (POST /factors/{id}/verify,
// mfa.go).

// checkFactorCode is a TOTP verification's transaction. A refusal comes
// back as refused with a nil error, so that what the transaction recorded
// (an expired challenge's deletion, a failure count) is committed.
func (a *API) checkFactorCode(ctx context.Context, tx pgx.Tx, caller *mfaCaller, factorID string, p verifyFactorParams, cl client) (resp *sessionResponse, refused error, err error) {
	f, err := factorOf(ctx, tx, caller.user.ID, factorID, true)
	if err != nil {
		return nil, refused, err
	}
	ch, err := challengeOf(ctx, tx, f.ID, strings.ToLower(p.ChallengeID))
	if errors.Is(err, errNotFound) {
		return nil, refused, errChallengeNotFound()
	}
	if err != nil {
		return nil, refused, err
	}
	now := a.now()
	if err := factorLocked(ctx, tx, f.ID, now); err != nil {
		return nil, refused, err
	}
	if ch.VerifiedAt != nil || ch.IP != challengeIP(cl.IP) {
		return nil, refused, unprocessable(codeMFAIPAddressMismatch, "Challenge and verify IP addresses mismatch.")
	}
	if now.After(ch.CreatedAt.Add(mfaChallengeExpiry)) {
		refused = unprocessable(codeMFAChallengeExpired,
			"MFA challenge %s has expired, verify against another challenge or create a new challenge.", ch.ID)
		return nil, refused, deleteChallenge(ctx, tx, ch.ID)
	}
	step, ok := acceptTOTP(f.secret, p.Code, now, f.lastStep)
	if !ok {
		refused = unprocessable(codeMFAVerificationFailed, "Invalid TOTP code entered")
		if locked, err := a.factorFailed(ctx, tx, f.ID, now); err != nil {
			return nil, refused, err
		} else if locked {
			a.limitBit(ctx, "mfa_factor", refused)
		}
		return nil, refused, nil
	}
	if err := factorPassed(ctx, tx, f.ID); err != nil {
		return nil, refused, err
	}
	if err := a.raise(ctx, tx, caller, f, ch, step, cl, now); errors.Is(err, errStepUsed) {
		refused = unprocessable(codeMFAVerificationFailed, "Invalid TOTP code entered")
		return nil, refused, errStepUsed // roll back the challenge's verification
	} else if err != nil {
		return nil, refused, err
	}
	u, err := userByID(ctx, tx, caller.user.ID, false)
	if err != nil {
		return nil, refused, err
	}
	resp, err = a.issueRaised(ctx, tx, u, caller.sessionID, now)
	return resp, nil, err
}
