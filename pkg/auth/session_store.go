package auth

import (
	"context"
	"time"
)

// The SQL of sessions and refresh tokens, under the store rules (store.go).

// createSession starts a session for userID and returns its id and first
// refresh token.
func createSession(ctx context.Context, q dbtx, userID string, now time.Time, cl client, method string) (sessionID, refresh string, err error) {
	if err := q.QueryRow(ctx, `INSERT INTO auth.sessions (id, user_id, created_at, updated_at, refreshed_at, aal, user_agent, ip)
		VALUES (gen_random_uuid(), $1::uuid, $2, $2, $2, 'aal1', $3, $4) RETURNING id::text`,
		userID, now, cl.ua(), cl.inet()).Scan(&sessionID); err != nil {
		return "", "", translate("create session", err)
	}
	if _, err := q.Exec(ctx, `INSERT INTO auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
		VALUES (gen_random_uuid(), $1::uuid, $2, $2, $3)`, sessionID, now, method); err != nil {
		return "", "", translate("record session method", err)
	}
	refresh, err = insertRefreshToken(ctx, q, userID, sessionID, "", now)
	return sessionID, refresh, err
}

// insertRefreshToken adds a live token to a session; parent is the token it
// replaces, "" for a session's first.
func insertRefreshToken(ctx context.Context, q dbtx, userID, sessionID, parent string, now time.Time) (string, error) {
	tok, err := newRefreshToken()
	if err != nil {
		return "", err
	}
	var p any
	if parent != "" {
		p = parent
	}
	if _, err := q.Exec(ctx, `INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
		VALUES ('00000000-0000-0000-0000-000000000000', $1, $2, false, $3, $3, $4, $5::uuid)`,
		tok, userID, now, p, sessionID); err != nil {
		return "", translate("insert refresh token", err)
	}
	return tok, nil
}

func refreshTokenByValue(ctx context.Context, q dbtx, tok string) (*refreshToken, error) {
	rt := &refreshToken{}
	err := q.QueryRow(ctx, `SELECT id, token, user_id, session_id::text, revoked, updated_at
		FROM auth.refresh_tokens WHERE token = $1`, tok).
		Scan(&rt.ID, &rt.Token, &rt.UserID, &rt.SessionID, &rt.Revoked, &rt.UpdatedAt)
	if err != nil {
		return nil, translate("find refresh token", err)
	}
	return rt, nil
}

// sessionByID reads a session; forUpdate takes its row lock, which is what
// serialises every refresh of one session.
func sessionByID(ctx context.Context, q dbtx, id string, forUpdate bool) (*session, error) {
	// Sessions from before migration 000011 have no recorded method: they
	// all began with a password.
	sql := `SELECT s.id::text, s.user_id::text, s.created_at, s.not_after,
		coalesce((SELECT c.authentication_method FROM auth.mfa_amr_claims c
		           WHERE c.session_id = s.id ORDER BY c.created_at LIMIT 1), 'password')
		FROM auth.sessions s WHERE s.id = $1::uuid`
	if forUpdate {
		sql += ` FOR UPDATE OF s`
	}
	s := &session{}
	if err := q.QueryRow(ctx, sql, id).Scan(&s.ID, &s.UserID, &s.CreatedAt, &s.NotAfter, &s.Method); err != nil {
		return nil, translate("find session", err)
	}
	return s, nil
}

// activeRefreshToken returns the session's live token, the newest if a bug
// ever left more than one.
func activeRefreshToken(ctx context.Context, q dbtx, sessionID string) (string, error) {
	var tok string
	err := q.QueryRow(ctx, `SELECT token FROM auth.refresh_tokens
		WHERE session_id = $1::uuid AND revoked = false ORDER BY id DESC LIMIT 1`, sessionID).Scan(&tok)
	if err != nil {
		return "", translate("find active refresh token", err)
	}
	return tok, nil
}

func revokeRefreshToken(ctx context.Context, q dbtx, id int64, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2 WHERE id = $1`, id, now)
	return translate("revoke refresh token", err)
}

// revokeSessionTokens revokes every live token of a session, which ends it
// for refresh purposes; the row stays for the audit trail until logout.
func revokeSessionTokens(ctx context.Context, q dbtx, sessionID string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2
		WHERE session_id = $1::uuid AND revoked = false`, sessionID, now)
	return translate("revoke session tokens", err)
}

func touchSession(ctx context.Context, q dbtx, sessionID string, now time.Time, cl client) error {
	_, err := q.Exec(ctx, `UPDATE auth.sessions SET refreshed_at = $2, updated_at = $2, user_agent = $3, ip = $4
		WHERE id = $1::uuid`, sessionID, now, cl.ua(), cl.inet())
	return translate("touch session", err)
}

// deleteSessions ends sessions of userID (their refresh tokens go with
// them): all of them, only keep's, or all but keep's.
func deleteSessions(ctx context.Context, q dbtx, userID string, scope logoutScope, keep string) error {
	var err error
	switch scope {
	case scopeLocal:
		_, err = q.Exec(ctx, `DELETE FROM auth.sessions WHERE id = $1::uuid AND user_id = $2::uuid`, keep, userID)
	case scopeOthers:
		_, err = q.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1::uuid AND id <> $2::uuid`, userID, keep)
	default:
		_, err = q.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1::uuid`, userID)
	}
	return translate("delete sessions", err)
}
