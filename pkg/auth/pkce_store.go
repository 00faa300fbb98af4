package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"time"
)

// The SQL of the PKCE flow (pkce.go): flow states and their auth codes,
// under the store rules (store.go).

// saveFlowState replaces the member's pending flow state of method with a
// new one for challenge. Its auth code is empty until /verify issues one.
func saveFlowState(ctx context.Context, q dbtx, userID string, p *pkceChallenge, method string, now time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM auth.flow_state WHERE user_id = $1::uuid AND authentication_method = $2`,
		userID, method); err != nil {
		return translate("replace flow state", err)
	}
	_, err := q.Exec(ctx, `INSERT INTO auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge,
		provider_type, created_at, updated_at, authentication_method)
		VALUES (gen_random_uuid(), $1::uuid, '', $2, $3, $4, $5, $5, $4)`,
		userID, p.method, p.challenge, method, now)
	return translate("save flow state", err)
}

// issueAuthCode gives the member's pending flow state of method a fresh
// one-time code and returns it; errFlowStateNotFound when there is none.
func issueAuthCode(ctx context.Context, q dbtx, userID, method string, now time.Time) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	code := base64.RawURLEncoding.EncodeToString(b)
	tag, err := q.Exec(ctx, `UPDATE auth.flow_state SET auth_code = $3, auth_code_issued_at = $4, updated_at = $4
		WHERE id = (SELECT id FROM auth.flow_state WHERE user_id = $1::uuid AND authentication_method = $2
		             ORDER BY created_at DESC LIMIT 1)`,
		userID, method, hashCode(code), now)
	if err != nil {
		return "", translate("issue auth code", err)
	}
	if tag.RowsAffected() == 0 {
		return "", errFlowStateNotFound
	}
	return code, nil
}

// hashCode is how auth codes are stored: SHA-256, hex.
func hashCode(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

// flowState is a pending PKCE flow found by its auth code.
type flowState struct {
	id, userID, method string
	challenge          pkceChallenge
	issued             *time.Time
}

// flowStateByCode locks the flow state whose auth code is code;
// errNotFound when there is none.
func flowStateByCode(ctx context.Context, q dbtx, code string) (*flowState, error) {
	fs := &flowState{}
	err := q.QueryRow(ctx, `SELECT id::text, user_id::text, code_challenge, code_challenge_method, auth_code_issued_at,
		authentication_method
		FROM auth.flow_state WHERE auth_code = $1 AND auth_code <> '' AND user_id IS NOT NULL FOR UPDATE`,
		hashCode(code)).Scan(&fs.id, &fs.userID, &fs.challenge.challenge, &fs.challenge.method, &fs.issued, &fs.method)
	if err != nil {
		return nil, translate("find flow state", err)
	}
	return fs, nil
}

// deleteFlowState removes a used or expired flow state.
func deleteFlowState(ctx context.Context, q dbtx, id string) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.flow_state WHERE id = $1::uuid`, id)
	return translate("delete flow state", err)
}
