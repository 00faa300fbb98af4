package auth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/db"
)

// This file and the *_store.go files beside it hold every SQL statement of
// the package (TestSQLLivesInStoreFiles holds the rest to it). Each
// function takes a dbtx so it runs on the pool or inside a transaction
// alike, and each returns errors already passed through translate: callers
// see errNotFound, an *apierr.Error for the failures a client caused, or a
// wrapped cause that the server renders as a 500.

type dbtx interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// statusClientClosed is nginx's 499, for a request whose client left.
const statusClientClosed = 499

// errNotFound is what a lookup that matched no row returns.
var errNotFound = errors.New("auth: not found")

// translate is the one place pgx errors become the package's errors.
func translate(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return errNotFound
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch {
		case pg.Code == pgerrcode.UniqueViolation && pg.ConstraintName == "users_email_partial_key":
			return unprocessable(codeUserAlreadyExists, msgUserExists).WithCause(err)
		// The invite trigger (000004_app_invites) refuses the row with this
		// detail whether the code is missing, unknown, expired, revoked or
		// used up; the client is told only that it is invalid.
		case pg.Code == "P0001" && pg.Detail == "invalid_invite_code":
			return unprocessable(codeInvalidInviteCode, msgInvalidInviteCode).WithCause(err)
		// Class 22 (data exception: a NUL character, a number jsonb cannot
		// hold, ...) and 54001 (JSON nested too deep for the parser) come
		// from what the client sent, not from a fault here.
		case strings.HasPrefix(pg.Code, "22") || pg.Code == pgerrcode.StatementTooComplex:
			return badRequest(codeValidationFailed, "Invalid input: %s", pg.Message).WithCause(err)
		}
	}
	if errors.Is(err, context.Canceled) {
		// The client went away (nginx's 499, as /rest/v1 answers): not a
		// server fault, and nobody reads the answer.
		return apierr.New(statusClientClosed, "request_canceled", "Request canceled").WithCause(err)
	}
	if db.ConnectionLost(err) {
		// The database is restarting or unreachable: a cause outside the
		// request. auth-js treats 503 as retryable (AuthRetryableFetchError).
		return apierr.New(http.StatusServiceUnavailable, "unexpected_failure",
			"The database is unavailable; try again shortly").WithCause(err).WithHeader("Retry-After", "2")
	}
	return fmt.Errorf("auth: %s: %w", op, err)
}

const userColumns = `u.id::text, coalesce(u.aud, ''), coalesce(u.role, ''), coalesce(u.email, ''),
	u.email_confirmed_at, coalesce(u.phone, ''), u.confirmed_at, u.last_sign_in_at,
	u.raw_app_meta_data, u.raw_user_meta_data, u.created_at, u.updated_at, u.is_anonymous,
	coalesce(u.encrypted_password, ''), u.banned_until, u.invited_at, u.confirmation_sent_at, u.recovery_sent_at,
	coalesce(u.email_change, ''), u.email_change_sent_at`

func scanUser(row pgx.Row) (*user, error) {
	u := &user{}
	err := row.Scan(&u.ID, &u.Aud, &u.Role, &u.Email, &u.EmailConfirmedAt, &u.Phone, &u.ConfirmedAt,
		&u.LastSignInAt, &u.AppMetadata, &u.UserMetadata, &u.CreatedAt, &u.UpdatedAt, &u.IsAnonymous,
		&u.passwordHash, &u.bannedUntil, &u.InvitedAt, &u.ConfirmationSentAt, &u.RecoverySentAt, &u.NewEmail,
		&u.EmailChangeSentAt)
	if err != nil {
		return nil, err
	}
	if u.AppMetadata == nil {
		u.AppMetadata = map[string]any{}
	}
	if u.UserMetadata == nil {
		u.UserMetadata = map[string]any{}
	}
	u.CreatedAt, u.UpdatedAt = u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	for _, t := range []**time.Time{&u.EmailConfirmedAt, &u.ConfirmedAt, &u.LastSignInAt, &u.bannedUntil,
		&u.InvitedAt, &u.ConfirmationSentAt, &u.RecoverySentAt, &u.EmailChangeSentAt} {
		if *t != nil {
			v := (*t).UTC()
			*t = &v
		}
	}
	return u, nil
}

// userByEmail finds a live, non-SSO user by lower-cased email, with
// identities.
func userByEmail(ctx context.Context, q dbtx, email string) (*user, error) {
	u, err := scanUser(q.QueryRow(ctx, `SELECT `+userColumns+` FROM auth.users u
		WHERE u.email = $1 AND u.is_sso_user = false AND u.deleted_at IS NULL`, email))
	if err != nil {
		return nil, translate("find user by email", err)
	}
	return u, loadIdentities(ctx, q, u)
}

// userByID finds a live user, with identities. forUpdate locks the row.
func userByID(ctx context.Context, q dbtx, id string, forUpdate bool) (*user, error) {
	sql := `SELECT ` + userColumns + ` FROM auth.users u WHERE u.id = $1::uuid AND u.deleted_at IS NULL`
	if forUpdate {
		sql += ` FOR UPDATE`
	}
	u, err := scanUser(q.QueryRow(ctx, sql, id))
	if err != nil {
		return nil, translate("find user by id", err)
	}
	return u, loadIdentities(ctx, q, u)
}

func loadIdentities(ctx context.Context, q dbtx, u *user) error {
	rows, err := q.Query(ctx, `SELECT id::text, provider_id, user_id::text, identity_data, provider,
		last_sign_in_at, created_at, updated_at, coalesce(email, '')
		FROM auth.identities WHERE user_id = $1::uuid ORDER BY created_at, id`, u.ID)
	if err != nil {
		return translate("load identities", err)
	}
	ids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (identity, error) {
		var i identity
		err := r.Scan(&i.IdentityID, &i.ID, &i.UserID, &i.IdentityData, &i.Provider, &i.LastSignInAt,
			&i.CreatedAt, &i.UpdatedAt, &i.Email)
		i.CreatedAt, i.UpdatedAt = i.CreatedAt.UTC(), i.UpdatedAt.UTC()
		if i.LastSignInAt != nil {
			t := i.LastSignInAt.UTC()
			i.LastSignInAt = &t
		}
		return i, err
	})
	if err != nil {
		return translate("load identities", err)
	}
	u.Identities = ids
	if u.Identities == nil {
		u.Identities = []identity{}
	}
	return loadFactors(ctx, q, u)
}

type newUser struct {
	Email        string
	PasswordHash string
	UserMetadata map[string]any
	Now          time.Time
	// Unconfirmed leaves email_confirmed_at empty (MAILER_AUTOCONFIRM off,
	// a user made by /otp or an invite); Invited stamps invited_at.
	Unconfirmed bool
	Invited     bool
}

// insertUser creates an email user and its email identity. The invite
// trigger runs inside the INSERT, so a refused invite surfaces here as
// invalid_invite_code, and a taken email as user_already_exists.
func insertUser(ctx context.Context, q dbtx, nu newUser) (*user, error) {
	meta := nu.UserMetadata
	if meta == nil {
		meta = map[string]any{}
	}
	var confirmed, invited any
	if !nu.Unconfirmed {
		confirmed = nu.Now
	}
	if nu.Invited {
		invited = nu.Now
	}
	var hash any
	if nu.PasswordHash != "" {
		hash = nu.PasswordHash
	}
	var id string
	err := q.QueryRow(ctx, `INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password,
			email_confirmed_at, last_sign_in_at, invited_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
		VALUES ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
			$1, $2, $3, $3, $6, '{"provider":"email","providers":["email"]}', $4, $5, $5)
		RETURNING id::text`, nu.Email, hash, confirmed, meta, nu.Now, invited).Scan(&id)
	if err != nil {
		return nil, translate("insert user", err)
	}
	data := map[string]any{"sub": id, "email": nu.Email, "email_verified": !nu.Unconfirmed, "phone_verified": false}
	if _, err := q.Exec(ctx, `INSERT INTO auth.identities (provider_id, user_id, identity_data, provider,
			last_sign_in_at, created_at, updated_at)
		VALUES ($1::text, $1::text::uuid, $2, 'email', $3, $4, $4)`, id, data, confirmed, nu.Now); err != nil {
		return nil, translate("insert identity", err)
	}
	return userByID(ctx, q, id, false)
}

// recordSignIn stamps last_sign_in_at on the user and its email identity.
func recordSignIn(ctx context.Context, q dbtx, userID string, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE auth.users SET last_sign_in_at = $2, updated_at = $2 WHERE id = $1::uuid`,
		userID, now); err != nil {
		return translate("record sign-in", err)
	}
	if _, err := q.Exec(ctx, `UPDATE auth.identities SET last_sign_in_at = $2
		WHERE user_id = $1::uuid AND provider = 'email'`, userID, now); err != nil {
		return translate("record sign-in", err)
	}
	return nil
}

// client is who made a request, recorded on sessions and audit rows.
type client struct {
	IP        string
	UserAgent string
}

func (c client) inet() any {
	if net.ParseIP(c.IP) == nil {
		return nil
	}
	return c.IP
}

func (c client) ua() any {
	if c.UserAgent == "" {
		return nil
	}
	if len(c.UserAgent) > 512 {
		return c.UserAgent[:512]
	}
	return c.UserAgent
}

// refreshToken is a row of auth.refresh_tokens.
type refreshToken struct {
	ID        int64
	Token     string
	UserID    string
	SessionID string
	Revoked   bool
	UpdatedAt time.Time
}

// session is a row of auth.sessions.
type session struct {
	ID        string
	UserID    string
	CreatedAt time.Time
	NotAfter  *time.Time
	// Method is how the session was authenticated (its amr method).
	Method string
}

func updatePassword(ctx context.Context, q dbtx, userID, hash string, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET encrypted_password = $2, updated_at = $3 WHERE id = $1::uuid`,
		userID, hash, now)
	return translate("update password", err)
}

func updateUserMetadata(ctx context.Context, q dbtx, userID string, meta map[string]any, now time.Time) error {
	_, err := q.Exec(ctx, `UPDATE auth.users SET raw_user_meta_data = $2, updated_at = $3 WHERE id = $1::uuid`,
		userID, meta, now)
	return translate("update user metadata", err)
}

// updateEmail changes the address on the user and its email identity. With
// autoconfirm there is no confirmation round, as GoTrue does then.
func updateEmail(ctx context.Context, q dbtx, userID, email string, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE auth.users SET email = $2, email_confirmed_at = $3, updated_at = $3
		WHERE id = $1::uuid`, userID, email, now); err != nil {
		return translate("update email", err)
	}
	_, err := q.Exec(ctx, `UPDATE auth.identities
		SET identity_data = identity_data || jsonb_build_object('email', $2::text), updated_at = $3
		WHERE user_id = $1::uuid AND provider = 'email'`, userID, email, now)
	return translate("update email", err)
}

// auditEntry is one row of auth.audit_log_entries, with GoTrue's payload.
type auditEntry struct {
	Action   string
	LogType  string
	ActorID  string
	Username string
	Traits   map[string]any
	IP       string
	Now      time.Time
}

func insertAudit(ctx context.Context, q dbtx, e auditEntry) error {
	payload := map[string]any{
		"action":         e.Action,
		"actor_id":       e.ActorID,
		"actor_username": e.Username,
		"actor_via_sso":  false,
		"log_type":       e.LogType,
	}
	if len(e.Traits) > 0 {
		payload["traits"] = e.Traits
	}
	ip := e.IP
	if len(ip) > 64 {
		ip = ip[:64]
	}
	_, err := q.Exec(ctx, `INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
		VALUES ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), $1, $2, $3)`, payload, e.Now, ip)
	return translate("insert audit entry", err)
}

// inviteUsable asks validate_invite_code (000004), the invite trigger's
// rule, without using the code up.
func inviteUsable(ctx context.Context, q dbtx, code string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, `SELECT (public.validate_invite_code($1) ->> 'valid')::boolean`, code).Scan(&ok)
	return ok, translate("check invite code", err)
}

// confirmEmail marks the user's address confirmed, on the user and its
// email identity (email_verified), as GoTrue does.
func confirmEmail(ctx context.Context, q dbtx, userID string, now interface{}) error {
	if _, err := q.Exec(ctx, `UPDATE auth.users SET email_confirmed_at = coalesce(email_confirmed_at, $2), updated_at = $2
		WHERE id = $1::uuid`, userID, now); err != nil {
		return translate("confirm email", err)
	}
	_, err := q.Exec(ctx, `UPDATE auth.identities
		SET identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = $2
		WHERE user_id = $1::uuid AND provider = 'email'`, userID, now)
	return translate("confirm email", err)
}

// inviteRule marks tx as exempt from the invite trigger when
// INVITE_REQUIRED is off (migration 000018); with it on, nothing is set
// and the database checks the code.
func (a *API) inviteRule(ctx context.Context, q dbtx) error {
	if a.cfg.InviteRequired {
		return nil
	}
	_, err := q.Exec(ctx, `SELECT set_config('labelbase.invite_required', 'off', true)`)
	return translate("mark invite rule", err)
}
