package auth

import (
	"time"
)

// user is a row of auth.users with its identities, shaped on the wire as
// GoTrue's User object. supabase-js requires id, aud, app_metadata,
// user_metadata and created_at and stores the rest verbatim.
type user struct {
	ID               string     `json:"id"`
	Aud              string     `json:"aud"`
	Role             string     `json:"role"`
	Email            string     `json:"email"`
	EmailConfirmedAt *time.Time `json:"email_confirmed_at,omitempty"`
	Phone            string     `json:"phone"`
	ConfirmedAt      *time.Time `json:"confirmed_at,omitempty"`
	// The mail state GoTrue shows: when an invite, confirmation or
	// recovery mail went out, and a pending email change.
	InvitedAt          *time.Time     `json:"invited_at,omitempty"`
	ConfirmationSentAt *time.Time     `json:"confirmation_sent_at,omitempty"`
	RecoverySentAt     *time.Time     `json:"recovery_sent_at,omitempty"`
	NewEmail           string         `json:"new_email,omitempty"`
	EmailChangeSentAt  *time.Time     `json:"email_change_sent_at,omitempty"`
	LastSignInAt       *time.Time     `json:"last_sign_in_at,omitempty"`
	AppMetadata        map[string]any `json:"app_metadata"`
	UserMetadata       map[string]any `json:"user_metadata"`
	Identities         []identity     `json:"identities"`
	Factors            []factor       `json:"factors,omitempty"`
	CreatedAt          time.Time      `json:"created_at"`
	UpdatedAt          time.Time      `json:"updated_at"`
	IsAnonymous        bool           `json:"is_anonymous"`

	// Not sent.
	passwordHash string
	bannedUntil  *time.Time
}

// identity is a row of auth.identities in GoTrue's wire shape, where "id" is
// the provider's id for the user and "identity_id" the row's.
type identity struct {
	IdentityID   string         `json:"identity_id"`
	ID           string         `json:"id"`
	UserID       string         `json:"user_id"`
	IdentityData map[string]any `json:"identity_data"`
	Provider     string         `json:"provider"`
	LastSignInAt *time.Time     `json:"last_sign_in_at,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	Email        string         `json:"email,omitempty"`
}

func (u *user) banned(now time.Time) bool {
	return u.bannedUntil != nil && u.bannedUntil.After(now)
}

// sessionResponse is what /token and an autoconfirmed /signup return.
// supabase-js stores it whole and treats it as a session only when
// access_token, refresh_token and expires_in are all truthy.
type sessionResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	ExpiresAt    int64  `json:"expires_at"`
	RefreshToken string `json:"refresh_token"`
	User         *user  `json:"user"`
}
