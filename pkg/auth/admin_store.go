package auth

import (
	"context"
	"time"
)

// The SQL of the admin users API and of account recovery. It sits beside
// store.go, not in it, to keep each file readable; the same rules hold
// (dbtx, bind parameters, errors through translate).

// adminCreateMarker is the transaction-local setting that lets the invite
// trigger (000010_admin_user_create) pass an INSERT without a code. Only
// the admin path sets it, inside its own transaction; clients cannot set
// settings (PostgREST exposes no set_config), and service_role, which could
// insert into auth.users directly, is already an administrator.
const adminCreateMarker = "labelbase.admin_user_create"

type adminNewUser struct {
	Email        string
	PasswordHash string
	Confirmed    bool
	UserMetadata map[string]any
	AppMetadata  map[string]any
	Role         string
	BannedUntil  *time.Time
	Now          time.Time
}

// asAdmin runs fn, which inserts into auth.users, with adminCreateMarker
// set, and clears the marker after it, so that nothing later in the
// transaction slips past the invite trigger. fn's error wins.
func asAdmin(ctx context.Context, q dbtx, fn func() error) error {
	if _, err := q.Exec(ctx, `SELECT set_config($1, 'on', true)`, adminCreateMarker); err != nil {
		return translate("mark admin create", err)
	}
	err := fn()
	if _, rerr := q.Exec(ctx, `SELECT set_config($1, '', true)`, adminCreateMarker); err == nil && rerr != nil {
		err = translate("unmark admin create", rerr)
	}
	return err
}

// adminInsertUser creates an email user without an invite code.
func adminInsertUser(ctx context.Context, q dbtx, nu adminNewUser) (*user, error) {
	var confirmed *time.Time
	if nu.Confirmed {
		confirmed = &nu.Now
	}
	var hash any
	if nu.PasswordHash != "" {
		hash = nu.PasswordHash
	}
	var id string
	err := asAdmin(ctx, q, func() error {
		return q.QueryRow(ctx, `INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password,
				email_confirmed_at, raw_app_meta_data, raw_user_meta_data, banned_until, created_at, updated_at)
			VALUES ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', $1,
				$2, $3, $4, $5, $6, $7, $8, $8)
			RETURNING id::text`, nu.Role, nu.Email, hash, confirmed, nu.AppMetadata, nu.UserMetadata, nu.BannedUntil, nu.Now).Scan(&id)
	})
	if err != nil {
		return nil, translate("insert user", err)
	}
	data := map[string]any{"sub": id, "email": nu.Email, "email_verified": nu.Confirmed, "phone_verified": false}
	if _, err := q.Exec(ctx, `INSERT INTO auth.identities (provider_id, user_id, identity_data, provider,
			created_at, updated_at)
		VALUES ($1::text, $1::text::uuid, $2, 'email', $3, $3)`, id, data, nu.Now); err != nil {
		return nil, translate("insert identity", err)
	}
	return userByID(ctx, q, id, false)
}

// listUsers returns one page of live users, newest first, and how many
// there are in all.
func listUsers(ctx context.Context, q dbtx, limit, offset int) ([]*user, int, error) {
	var total int
	if err := q.QueryRow(ctx, `SELECT count(*) FROM auth.users WHERE deleted_at IS NULL`).Scan(&total); err != nil {
		return nil, 0, translate("count users", err)
	}
	rows, err := q.Query(ctx, `SELECT `+userColumns+` FROM auth.users u WHERE u.deleted_at IS NULL
		ORDER BY u.created_at DESC, u.id LIMIT $1 OFFSET $2`, limit, offset)
	if err != nil {
		return nil, 0, translate("list users", err)
	}
	var out []*user
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			rows.Close()
			return nil, 0, translate("list users", err)
		}
		out = append(out, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, translate("list users", err)
	}
	for _, u := range out {
		if err := loadIdentities(ctx, q, u); err != nil {
			return nil, 0, err
		}
	}
	if out == nil {
		out = []*user{}
	}
	return out, total, nil
}

func updateAppMetadata(ctx context.Context, q dbtx, userID string, meta map[string]any, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET raw_app_meta_data = $2, updated_at = $3 WHERE id = $1::uuid`,
		userID, meta, now)
	return translate("update app metadata", err)
}

func updateBan(ctx context.Context, q dbtx, userID string, until *time.Time, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET banned_until = $2, updated_at = $3 WHERE id = $1::uuid`,
		userID, until, now)
	return translate("update ban", err)
}

func updateRole(ctx context.Context, q dbtx, userID, role string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET role = $2, updated_at = $3 WHERE id = $1::uuid`, userID, role, now)
	return translate("update role", err)
}

func setEmailConfirmed(ctx context.Context, q dbtx, userID string, confirmed bool, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET email_confirmed_at = CASE WHEN $2 THEN coalesce(email_confirmed_at, $3) END,
		updated_at = $3 WHERE id = $1::uuid`, userID, confirmed, now)
	return translate("confirm email", err)
}

// deleteUser removes the user; identities, sessions and refresh tokens go
// with it (ON DELETE CASCADE).
func deleteUser(ctx context.Context, q dbtx, userID string) error {
	tag, err := q.Exec(ctx, `DELETE FROM auth.users WHERE id = $1::uuid`, userID)
	if err == nil && tag.RowsAffected() == 0 {
		return errNotFound
	}
	return translate("delete user", err)
}

// softDeleteUser keeps the row for the audit trail but frees the email and
// ends every way in, as GoTrue's should_soft_delete does.
func softDeleteUser(ctx context.Context, q dbtx, userID string, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE auth.users SET deleted_at = $2, updated_at = $2, email = NULL,
		encrypted_password = '', recovery_token = NULL WHERE id = $1::uuid`, userID, now); err != nil {
		return translate("soft delete user", err)
	}
	if _, err := q.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1::uuid`, userID); err != nil {
		return translate("soft delete user", err)
	}
	if _, err := q.Exec(ctx, `DELETE FROM auth.identities WHERE user_id = $1::uuid`, userID); err != nil {
		return translate("soft delete user", err)
	}
	return deleteSessions(ctx, q, userID, scopeGlobal, "")
}
