// Package invite manages invite codes, the only way into Labelbase.
// The database enforces them (a trigger on auth.users); this package is the
// operator's side: create, list and revoke.
package invite

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// alphabet leaves out characters people confuse when reading a code aloud
// (0/o, 1/l/i).
const alphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// groups of four characters: 6 × 4 × log2(31) ≈ 119 bits, so guessing a
// live code through validate_invite_code is hopeless.
const groups, groupLen = 6, 4

// ErrNotFound is returned when no code matches.
var ErrNotFound = errors.New("invite: no such code")

// Code is an invite code and its state.
type Code struct {
	Code      string
	MaxUses   int
	Uses      int
	ExpiresAt *time.Time
	RevokedAt *time.Time
	Note      string
	CreatedAt time.Time
}

// Status is a one-word summary: active, used, expired or revoked.
func (c Code) Status(now time.Time) string {
	switch {
	case c.RevokedAt != nil:
		return "revoked"
	case c.ExpiresAt != nil && !c.ExpiresAt.After(now):
		return "expired"
	case c.Uses >= c.MaxUses:
		return "used"
	default:
		return "active"
	}
}

// Generate returns a fresh random code such as "k7mq-2xwz-…".
func Generate() (string, error) {
	var b strings.Builder
	max := big.NewInt(int64(len(alphabet)))
	for g := 0; g < groups; g++ {
		if g > 0 {
			b.WriteByte('-')
		}
		for i := 0; i < groupLen; i++ {
			n, err := rand.Int(rand.Reader, max)
			if err != nil {
				return "", fmt.Errorf("invite: %w", err)
			}
			b.WriteByte(alphabet[n.Int64()])
		}
	}
	return b.String(), nil
}

// Options for a new code.
type Options struct {
	MaxUses int
	// TTL, when positive, makes the code expire that long after now.
	TTL  time.Duration
	Note string
}

// Create stores a new code and returns it.
func Create(ctx context.Context, pool *pgxpool.Pool, o Options) (Code, error) {
	if o.MaxUses < 1 {
		return Code{}, errors.New("invite: uses must be at least 1")
	}
	if o.TTL < 0 {
		return Code{}, errors.New("invite: expiry must be in the future")
	}
	code, err := Generate()
	if err != nil {
		return Code{}, err
	}
	var expires *time.Time
	if o.TTL > 0 {
		t := time.Now().Add(o.TTL)
		expires = &t
	}
	row := pool.QueryRow(ctx, `
		INSERT INTO public.invite_codes (code, max_uses, expires_at, note)
		VALUES ($1, $2, $3, $4)
		RETURNING code, max_uses, uses, expires_at, revoked_at, note, created_at`,
		code, o.MaxUses, expires, o.Note)
	return scan(row)
}

// List returns every code, newest first.
func List(ctx context.Context, pool *pgxpool.Pool) ([]Code, error) {
	rows, err := pool.Query(ctx, `
		SELECT code, max_uses, uses, expires_at, revoked_at, note, created_at
		  FROM public.invite_codes ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("invite: list: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Code, error) { return scan(r) })
}

// Revoke makes a code unusable at once. Revoking twice is harmless.
func Revoke(ctx context.Context, pool *pgxpool.Pool, code string) error {
	tag, err := pool.Exec(ctx, `
		UPDATE public.invite_codes SET revoked_at = coalesce(revoked_at, now()) WHERE code = $1`,
		strings.TrimSpace(code))
	if err != nil {
		return fmt.Errorf("invite: revoke: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

func scan(row pgx.Row) (Code, error) {
	var c Code
	err := row.Scan(&c.Code, &c.MaxUses, &c.Uses, &c.ExpiresAt, &c.RevokedAt, &c.Note, &c.CreatedAt)
	if err != nil {
		return Code{}, fmt.Errorf("invite: %w", err)
	}
	return c, nil
}
