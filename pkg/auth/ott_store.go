package auth

import (
	"context"
	"fmt"
	"time"
)

// The SQL of the email flows' one-time tokens (onetime.go) and of when
// a user was last mailed, under the store rules (store.go).

// putToken stores the user's token of kind typ, replacing an older one.
func putToken(ctx context.Context, q dbtx, userID, typ, hash, relatesTo string, now time.Time) error {
	_, err := q.Exec(ctx, `INSERT INTO auth.one_time_tokens (user_id, token_type, token_hash, relates_to, created_at, updated_at)
		VALUES ($1::uuid, $2, $3, $4, $5, $5)
		ON CONFLICT (user_id, token_type) DO UPDATE
		SET token_hash = EXCLUDED.token_hash, relates_to = EXCLUDED.relates_to,
		    created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at, failed_attempts = 0`,
		userID, typ, hash, relatesTo, now)
	return translate("store one-time token", err)
}

// takeToken deletes and returns the live token whose stored hash is hash
// (or its PKCE form) among types, sent after notBefore; relatesTo, when set, must
// be the address it was sent to. errNotFound covers unknown, used and
// expired tokens alike.
func takeToken(ctx context.Context, q dbtx, hash string, types []string, relatesTo string, notBefore time.Time) (userID, typ string, pkce bool, err error) {
	if len(hash) > 200 {
		return "", "", false, errNotFound
	}
	err = q.QueryRow(ctx, `DELETE FROM auth.one_time_tokens
		WHERE token_hash IN ($1::text, $2::text || $1::text) AND token_type = ANY($3)
		  AND created_at > $4 AND ($5::text = '' OR relates_to = $5::text)
		RETURNING user_id::text, token_type, token_hash <> $1::text`,
		hash, pkcePrefix, types, notBefore, relatesTo).Scan(&userID, &typ, &pkce)
	return userID, typ, pkce, translate("take one-time token", err)
}

// hasToken reports whether the user holds a token of kind typ.
func hasToken(ctx context.Context, q dbtx, userID, typ string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.one_time_tokens WHERE user_id = $1::uuid AND token_type = $2)`,
		userID, typ).Scan(&ok)
	return ok, translate("read one-time token", err)
}

func dropTokens(ctx context.Context, q dbtx, userID string, types ...string) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1::uuid AND token_type = ANY($2)`, userID, types)
	return translate("drop one-time tokens", err)
}

// sentColumnOf is the auth.users column recording when a token of a kind
// was last mailed; it outlives the token, which is deleted when used.
var sentColumnOf = map[string]string{
	ottRecovery: "recovery_sent_at", ottConfirmation: "confirmation_sent_at",
	ottEmailChangeNew: "email_change_sent_at", ottEmailChangeCurrent: "email_change_sent_at",
	ottReauthentication: "reauthentication_sent_at",
}

// lastSent is when u was last mailed a token of kind typ, nil if never.
func lastSent(ctx context.Context, q dbtx, userID, typ string) (*time.Time, error) {
	var t *time.Time
	err := q.QueryRow(ctx, `SELECT `+sentColumnOf[typ]+` FROM auth.users WHERE id = $1::uuid`, userID).Scan(&t)
	return t, translate("read sent time", err)
}

// sentColumns are the auth.users columns stampSent may set.
var sentColumns = map[string]bool{"recovery_sent_at": true, "confirmation_sent_at": true,
	"email_change_sent_at": true, "reauthentication_sent_at": true, "invited_at": true}

// stampSent records when a mail of the user went out, in GoTrue's column.
func stampSent(ctx context.Context, q dbtx, userID, column string, now time.Time) error {
	if !sentColumns[column] {
		return fmt.Errorf("auth: no such sent column %q", column)
	}
	_, err := q.Exec(ctx, `UPDATE auth.users SET `+column+` = $2 WHERE id = $1::uuid`, userID, now)
	return translate("stamp "+column, err)
}
