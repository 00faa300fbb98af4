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
// are confirmed at /verify (type email_change). With autoconfirm on, the
// address moves at once, as GoTrue does.

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
	var newEmail string
	var status int
	if err := tx.QueryRow(ctx, `SELECT coalesce(email_change, ''), coalesce(email_change_confirm_status, 0)
		FROM auth.users WHERE id = $1::uuid`, u.ID).Scan(&newEmail, &status); err != nil {
		return false, translate("read email change", err)
	}
	if newEmail == "" {
		return false, forbidden(codeOTPExpired, msgLinkInvalid)
	}
	if !a.cfg.MailerAutoconfirm && a.cfg.MailerSecureEmailChange && status == 0 && u.Email != "" {
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
			_, err := tx.Exec(ctx, `UPDATE auth.users SET email_change_confirm_status = 1 WHERE id = $1::uuid`, u.ID)
			return false, translate("confirm email change", err)
		}
	}
	if err := updateEmail(ctx, tx, u.ID, newEmail, now); err != nil {
		return false, emailExists(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.users SET email_change = '', email_change_sent_at = NULL,
		email_change_confirm_status = 0, email_change_token_new = '', email_change_token_current = ''
		WHERE id = $1::uuid`, u.ID); err != nil {
		return false, translate("finish email change", err)
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

// checkNewEmail refuses u's own address and one another user holds.
func checkNewEmail(ctx context.Context, q dbtx, u *user, newEmail string) error {
	var taken bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.users WHERE email = $1 AND id <> $2::uuid
		AND is_sso_user = false)`, newEmail, u.ID).Scan(&taken); err != nil {
		return translate("check email", err)
	}
	if taken || newEmail == u.Email {
		return unprocessable(codeEmailExists, "A user with this email address has already been registered")
	}
	return nil
}

// recordEmailChange stores newEmail as u's pending change, with nothing
// confirmed yet.
func recordEmailChange(ctx context.Context, q dbtx, userID, newEmail string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET email_change = $2, email_change_sent_at = $3,
		email_change_confirm_status = 0, updated_at = $3 WHERE id = $1::uuid`, userID, newEmail, now)
	return translate("start email change", err)
}
