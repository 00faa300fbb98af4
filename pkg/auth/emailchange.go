package auth

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Email change as GoTrue runs it when MAILER_AUTOCONFIRM is off: PUT /user
// with a new address keeps it in users.email_change and mails a link and
// code to the new address — and, with MAILER_SECURE_EMAIL_CHANGE_ENABLED
// (the default), to the current one too; the address moves only when both
// are confirmed at /verify (type email_change). Unlike GoTrue, this holds
// with autoconfirm on as well whenever mail can be sent (security review
// L5); without mail and with autoconfirm, the address moves at once.

// startEmailChange records a pending change of u's address to newEmail and
// returns the tokens to mail (new address first). A taken address is
// email_exists; a change asked for within SMTP_MAX_FREQUENCY is a 429.
func (a *API) startEmailChange(ctx context.Context, tx pgx.Tx, u *user, newEmail, redirectTo string, pkce *pkceChallenge, now time.Time) ([]*emailToken, error) {
	if err := checkNewEmail(ctx, tx, u, newEmail); err != nil {
		return nil, err
	}
	if err := a.tooSoon(ctx, tx, u.ID, ottEmailChangeNew, now); err != nil {
		return nil, err
	}
	if err := recordEmailChange(ctx, tx, u.ID, newEmail, now); err != nil {
		return nil, err
	}
	if pkce != nil {
		if err := saveFlowState(ctx, tx, u.ID, pkce, methodFor(vtEmailChange), now); err != nil {
			return nil, err
		}
	}
	out := []*emailToken{{typ: ottEmailChangeNew, verify: vtEmailChange, to: newEmail, redirectTo: redirectTo, pkce: pkce != nil}}
	if a.cfg.MailerSecureEmailChange && u.Email != "" {
		out = append(out, &emailToken{typ: ottEmailChangeCurrent, verify: vtEmailChange, to: u.Email, redirectTo: redirectTo, pkce: pkce != nil})
	} else if err := dropTokens(ctx, tx, u.ID, ottEmailChangeCurrent); err != nil {
		return nil, err
	}
	for _, t := range out {
		if err := a.issue(ctx, tx, u, t, now); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// confirmEmailChange applies one confirmed email-change token (its kind
// ttype) to u. It reports false when this was the first of the two
// confirmations a secure change needs, and the other is still pending.
func (a *API) confirmEmailChange(ctx context.Context, tx pgx.Tx, u *user, ttype string, cl client, now time.Time) (bool, error) {
	newEmail, status, err := pendingEmailChange(ctx, tx, u.ID)
	if err != nil {
		return false, err
	}
	if newEmail == "" {
		return false, forbidden(codeOTPExpired, msgLinkInvalid)
	}
	// Both sides, whatever MAILER_AUTOCONFIRM says: since PUT /user mails a
	// change under autoconfirm too, a code from the current address alone
	// must not move the account to an address nobody proved (review L5).
	if a.cfg.MailerSecureEmailChange && status == 0 && u.Email != "" {
		other := ottEmailChangeNew
		if ttype == ottEmailChangeNew {
			other = ottEmailChangeCurrent
		}
		// A change made by generate_link has one token only; it is
		// applied on its own.
		pending, err := hasToken(ctx, tx, u.ID, other)
		if err != nil {
			return false, err
		}
		if pending {
			return false, markHalfConfirmed(ctx, tx, u.ID)
		}
	}
	if err := updateEmail(ctx, tx, u.ID, newEmail, now); err != nil {
		return false, emailExists(err)
	}
	if err := clearEmailChange(ctx, tx, u.ID); err != nil {
		return false, err
	}
	if err := dropTokens(ctx, tx, u.ID, ottEmailChangeNew, ottEmailChangeCurrent); err != nil {
		return false, err
	}
	u.Email = newEmail
	return true, insertAudit(ctx, tx, a.audit(u, actionUserModified, logUser, cl))
}

// resendEmailChange re-mails a pending change (POST /resend, which anyone
// may call with the address). It issues new tokens only for the sides that
// still wait for their confirmation and leaves email_change_confirm_status
// alone, so a stranger's resend cannot undo the half of a secure change the
// member already confirmed (security review L4). When no token is left
// (both expired), the change starts over, which loses nothing.
func (a *API) resendEmailChange(ctx context.Context, tx pgx.Tx, u *user, redirectTo string, now time.Time) ([]*emailToken, error) {
	if err := a.tooSoon(ctx, tx, u.ID, ottEmailChangeNew, now); err != nil {
		return nil, err
	}
	var out []*emailToken
	for _, side := range []struct{ typ, to string }{{ottEmailChangeNew, u.NewEmail}, {ottEmailChangeCurrent, u.Email}} {
		pending, err := hasToken(ctx, tx, u.ID, side.typ)
		if err != nil {
			return nil, err
		}
		if pending {
			out = append(out, &emailToken{typ: side.typ, verify: vtEmailChange, to: side.to, redirectTo: redirectTo})
		}
	}
	if len(out) == 0 {
		return a.startEmailChange(ctx, tx, u, u.NewEmail, redirectTo, nil, now)
	}
	for _, t := range out {
		if err := a.issue(ctx, tx, u, t, now); err != nil {
			return nil, err
		}
	}
	return out, stampSent(ctx, tx, u.ID, "email_change_sent_at", now)
}
