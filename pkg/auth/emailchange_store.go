package auth

import (
	"context"
	"time"
)

// The SQL of the email change (emailchange.go), under the store rules
// (store.go).

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

// pendingEmailChange is the user's pending new address ("" for none) and
// how much of it is confirmed (1: one side of a secure change).
func pendingEmailChange(ctx context.Context, q dbtx, userID string) (string, int, error) {
	var newEmail string
	var status int
	err := q.QueryRow(ctx, `SELECT coalesce(email_change, ''), coalesce(email_change_confirm_status, 0)
		FROM auth.users WHERE id = $1::uuid`, userID).Scan(&newEmail, &status)
	return newEmail, status, translate("read email change", err)
}

// markHalfConfirmed records the first of a secure change's two confirmations.
func markHalfConfirmed(ctx context.Context, q dbtx, userID string) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET email_change_confirm_status = 1 WHERE id = $1::uuid`, userID)
	return translate("confirm email change", err)
}

// clearEmailChange forgets a change that was applied.
func clearEmailChange(ctx context.Context, q dbtx, userID string) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET email_change = '', email_change_sent_at = NULL,
		email_change_confirm_status = 0, email_change_token_new = '', email_change_token_current = ''
		WHERE id = $1::uuid`, userID)
	return translate("finish email change", err)
}
