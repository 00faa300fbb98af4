package auth

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/labelbase/labelbase/pkg/token"
)

// The SQL of the MFA factors (auth.mfa_factors, auth.mfa_challenges) and
// of the sessions' assurance level (auth.sessions.aal, auth.mfa_amr_claims).

// factor is a row of auth.mfa_factors, in GoTrue's wire shape (its secret
// is never sent).
type factor struct {
	ID               string     `json:"id"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
	Status           string     `json:"status"`
	FriendlyName     string     `json:"friendly_name,omitempty"`
	FactorType       string     `json:"factor_type"`
	Phone            string     `json:"phone"`
	LastChallengedAt *time.Time `json:"last_challenged_at"`

	userID   string
	secret   string
	lastStep *int64
}

const (
	factorVerified   = "verified"
	factorUnverified = "unverified"
	factorTypeTOTP   = "totp"
)

func (f *factor) verified() bool { return f.Status == factorVerified }

const factorColumns = `f.id::text, f.user_id::text, f.created_at, f.updated_at, f.status,
	coalesce(f.friendly_name, ''), f.factor_type, coalesce(f.phone, ''), f.last_challenged_at,
	coalesce(f.secret, ''), f.last_used_totp_step`

func scanFactor(row pgx.Row) (*factor, error) {
	f := &factor{}
	if err := row.Scan(&f.ID, &f.userID, &f.CreatedAt, &f.UpdatedAt, &f.Status, &f.FriendlyName,
		&f.FactorType, &f.Phone, &f.LastChallengedAt, &f.secret, &f.lastStep); err != nil {
		return nil, err
	}
	f.CreatedAt, f.UpdatedAt = f.CreatedAt.UTC(), f.UpdatedAt.UTC()
	if f.LastChallengedAt != nil {
		t := f.LastChallengedAt.UTC()
		f.LastChallengedAt = &t
	}
	return f, nil
}

// factorsOf lists a user's factors, oldest first.
func factorsOf(ctx context.Context, q dbtx, userID string) ([]factor, error) {
	rows, err := q.Query(ctx, `SELECT `+factorColumns+` FROM auth.mfa_factors f
		WHERE f.user_id = $1::uuid ORDER BY f.created_at, f.id`, userID)
	if err != nil {
		return nil, translate("list factors", err)
	}
	fs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (factor, error) {
		f, err := scanFactor(r)
		if err != nil {
			return factor{}, err
		}
		return *f, nil
	})
	if err != nil {
		return nil, translate("list factors", err)
	}
	return fs, nil
}

// loadFactors fills u.Factors, which GET /user, the sign-in response and
// the admin API carry (auth-js reads them for getAuthenticatorAssuranceLevel).
func loadFactors(ctx context.Context, q dbtx, u *user) error {
	fs, err := factorsOf(ctx, q, u.ID)
	if err != nil {
		return err
	}
	u.Factors = fs
	return nil
}

// factorOf finds one of userID's factors; forUpdate locks it, which
// serialises every verification of the factor (the replay check).
func factorOf(ctx context.Context, q dbtx, userID, factorID string, forUpdate bool) (*factor, error) {
	sql := `SELECT ` + factorColumns + ` FROM auth.mfa_factors f WHERE f.id = $1::uuid AND f.user_id = $2::uuid`
	if forUpdate {
		sql += ` FOR UPDATE`
	}
	f, err := scanFactor(q.QueryRow(ctx, sql, factorID, userID))
	if err != nil {
		return nil, translate("find factor", err)
	}
	return f, nil
}

// lockUser takes the user's row lock, so that concurrent enrolments count
// the same factors.
func lockUser(ctx context.Context, q dbtx, userID string) error {
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM auth.users WHERE id = $1::uuid FOR UPDATE`, userID).Scan(&one)
	return translate("lock user", err)
}

// deleteExpiredFactors drops userID's unverified factors that were never
// challenged and are older than maxAge, as GoTrue does before an enrolment
// (an abandoned setup should not count against the limit).
func deleteExpiredFactors(ctx context.Context, q dbtx, userID string, now time.Time, maxAge time.Duration) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.mfa_factors f WHERE f.user_id = $1::uuid AND f.status <> 'verified'
		AND NOT EXISTS (SELECT 1 FROM auth.mfa_challenges c WHERE c.factor_id = f.id)
		AND f.created_at < $2`, userID, now.Add(-maxAge))
	return translate("delete expired factors", err)
}

// insertFactor adds f and sets its new id.
func insertFactor(ctx context.Context, q dbtx, f *factor) error {
	var name any
	if f.FriendlyName != "" {
		name = f.FriendlyName
	}
	err := q.QueryRow(ctx, `INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
		VALUES (gen_random_uuid(), $1::uuid, $2, $3, $4, $5, $5, $6) RETURNING id::text`,
		f.userID, name, f.FactorType, f.Status, f.CreatedAt, f.secret).Scan(&f.ID)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == pgerrcode.UniqueViolation && pg.ConstraintName == "mfa_factors_user_friendly_name_unique" {
		return errFactorNameConflict(f.FriendlyName).WithCause(err)
	}
	return translate("insert factor", err)
}

// deleteFactor removes a factor (its challenges go with it) and takes the
// sessions it raised back to aal1: their totp claim is dropped, so a
// refresh issues an aal1 token, as GoTrue's DowngradeSessionsToAAL1 does.
func deleteFactor(ctx context.Context, q dbtx, f *factor, now time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM auth.mfa_amr_claims c USING auth.sessions s
		WHERE c.session_id = s.id AND s.factor_id = $1::uuid AND c.authentication_method = $2`, f.ID, f.FactorType); err != nil {
		return translate("downgrade sessions", err)
	}
	if _, err := q.Exec(ctx, `UPDATE auth.sessions SET aal = 'aal1', factor_id = NULL, updated_at = $2
		WHERE factor_id = $1::uuid`, f.ID, now); err != nil {
		return translate("downgrade sessions", err)
	}
	_, err := q.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE id = $1::uuid`, f.ID)
	return translate("delete factor", err)
}

// challenge is a row of auth.mfa_challenges.
type challenge struct {
	ID         string
	FactorID   string
	CreatedAt  time.Time
	VerifiedAt *time.Time
	IP         string
}

// insertChallenge records a challenge of f from ip and stamps the factor's
// last_challenged_at.
func insertChallenge(ctx context.Context, q dbtx, f *factor, ip string, now time.Time) (string, error) {
	var id string
	if err := q.QueryRow(ctx, `INSERT INTO auth.mfa_challenges (id, factor_id, created_at, ip_address)
		VALUES (gen_random_uuid(), $1::uuid, $2, $3::inet) RETURNING id::text`, f.ID, now, challengeIP(ip)).Scan(&id); err != nil {
		return "", translate("insert challenge", err)
	}
	_, err := q.Exec(ctx, `UPDATE auth.mfa_factors SET last_challenged_at = $2 WHERE id = $1::uuid`, f.ID, now)
	return id, translate("stamp factor", err)
}

// challengeIP is the address a challenge records (the column is NOT NULL
// inet); an unparsable client address is recorded as the unspecified one,
// which the same client's verify will match again.
func challengeIP(ip string) string {
	if parsed := net.ParseIP(ip); parsed != nil {
		return parsed.String()
	}
	return "0.0.0.0"
}

func challengeOf(ctx context.Context, q dbtx, factorID, challengeID string) (*challenge, error) {
	ch := &challenge{}
	err := q.QueryRow(ctx, `SELECT id::text, factor_id::text, created_at, verified_at, host(ip_address)
		FROM auth.mfa_challenges WHERE id = $1::uuid AND factor_id = $2::uuid`, challengeID, factorID).
		Scan(&ch.ID, &ch.FactorID, &ch.CreatedAt, &ch.VerifiedAt, &ch.IP)
	if err != nil {
		return nil, translate("find challenge", err)
	}
	return ch, nil
}

func deleteChallenge(ctx context.Context, q dbtx, id string) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.mfa_challenges WHERE id = $1::uuid`, id)
	return translate("delete challenge", err)
}

// errStepUsed is consumeChallenge's answer when the factor already
// accepted a code for step or a later one.
var errStepUsed = errors.New("auth: TOTP step already used")

// consumeChallenge marks the challenge verified and the factor verified,
// with step as its last used TOTP step. The step only moves forward: the
// UPDATE compares and sets, so even without the caller's row lock two
// verifications of one code could not both pass.
func consumeChallenge(ctx context.Context, q dbtx, ch *challenge, step int64, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE auth.mfa_challenges SET verified_at = $2 WHERE id = $1::uuid`, ch.ID, now); err != nil {
		return translate("verify challenge", err)
	}
	tag, err := q.Exec(ctx, `UPDATE auth.mfa_factors SET status = 'verified', last_used_totp_step = $2, updated_at = $3
		WHERE id = $1::uuid AND (last_used_totp_step IS NULL OR last_used_totp_step < $2)`, ch.FactorID, step, now)
	if err != nil {
		return translate("verify factor", err)
	}
	if tag.RowsAffected() == 0 {
		return errStepUsed
	}
	return nil
}

// raiseSession makes sessionID an aal2 session through f: its aal and
// factor, and a claim for the factor's method next to the first one.
func raiseSession(ctx context.Context, q dbtx, sessionID string, f *factor, now time.Time) error {
	if _, err := q.Exec(ctx, `UPDATE auth.sessions SET aal = 'aal2', factor_id = $2::uuid, updated_at = $3
		WHERE id = $1::uuid`, sessionID, f.ID, now); err != nil {
		return translate("raise session", err)
	}
	_, err := q.Exec(ctx, `INSERT INTO auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
		VALUES (gen_random_uuid(), $1::uuid, $2, $2, $3)
		ON CONFLICT (session_id, authentication_method) DO UPDATE SET updated_at = excluded.updated_at`,
		sessionID, now, f.FactorType)
	return translate("record session method", err)
}

// dropWeakerSessions ends the user's other aal1 sessions once a factor is
// verified, as GoTrue's InvalidateSessionsWithAALLessThan does: whoever
// signed in with the password alone must now pass the second step too.
func dropWeakerSessions(ctx context.Context, q dbtx, userID, keep string) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1::uuid AND id <> $2::uuid AND aal = 'aal1'`, userID, keep)
	return translate("end aal1 sessions", err)
}

// deleteUnverifiedFactors drops the user's other unverified factors of a
// type once one of that type is verified (abandoned setups).
func deleteUnverifiedFactors(ctx context.Context, q dbtx, userID, factorType string) error {
	_, err := q.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE user_id = $1::uuid AND factor_type = $2 AND status <> 'verified'`,
		userID, factorType)
	return translate("delete unverified factors", err)
}

// sessionAAL is a session's assurance level as auth.sessions records it.
func sessionAAL(ctx context.Context, q dbtx, sessionID string) (string, error) {
	var aal string
	err := q.QueryRow(ctx, `SELECT aal FROM auth.sessions WHERE id = $1::uuid`, sessionID).Scan(&aal)
	if err != nil {
		return "", translate("read session aal", err)
	}
	return aal, nil
}

// sessionClaims is the amr of a session, most recent first (GoTrue's
// order), and its level: aal2 when a second factor's claim is among them.
func sessionClaims(ctx context.Context, q dbtx, sessionID string) (string, []token.AMREntry, error) {
	rows, err := q.Query(ctx, `SELECT authentication_method, updated_at FROM auth.mfa_amr_claims
		WHERE session_id = $1::uuid ORDER BY updated_at DESC, authentication_method = 'totp' DESC, authentication_method`, sessionID)
	if err != nil {
		return "", nil, translate("read session claims", err)
	}
	aal := "aal1"
	amr, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (token.AMREntry, error) {
		var m string
		var at time.Time
		if err := r.Scan(&m, &at); err != nil {
			return token.AMREntry{}, err
		}
		if m == factorTypeTOTP {
			aal = "aal2"
		}
		return token.AMREntry{Method: m, Timestamp: at.Unix()}, nil
	})
	if err != nil {
		return "", nil, translate("read session claims", err)
	}
	return aal, amr, nil
}
