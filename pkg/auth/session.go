package auth

import (
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/labelbase/labelbase/pkg/token"
)

// accessClaims are GoTrue's access-token claims. aud is overridden to be a
// plain string, as GoTrue writes it; jwt's ClaimStrings would write a
// one-element array, which some verifiers compare as a string and reject.
type accessClaims struct {
	token.Claims
	Aud string `json:"aud"`
}

// issueSession signs an access token for u in sessionID and returns the
// response body /token and /signup send. method and authAt are how and
// when the session was authenticated (GoTrue's amr: "password", "otp" for
// a recovery link, "recovery" for its PKCE exchange); they survive
// refreshes.
func (a *API) issueSession(u *user, sessionID, refresh, method string, authAt, now time.Time) (*sessionResponse, error) {
	return a.issueSessionAt(u, sessionID, refresh, "aal1", []token.AMREntry{{Method: method, Timestamp: authAt.Unix()}}, now)
}

// issueSessionAt is issueSession for a session whose assurance level and
// methods are known: aal2 and a totp entry once a second factor passed
// (mfa_session.go).
func (a *API) issueSessionAt(u *user, sessionID, refresh, aal string, amr []token.AMREntry, now time.Time) (*sessionResponse, error) {
	exp := now.Add(a.cfg.JWTExpiry)
	aud := u.Aud
	if aud == "" {
		aud = "authenticated"
	}
	role := u.Role
	if role == "" {
		role = "authenticated"
	}
	claims := accessClaims{
		Claims: token.Claims{
			RegisteredClaims: jwt.RegisteredClaims{
				Subject:   u.ID,
				Issuer:    a.issuer,
				IssuedAt:  jwt.NewNumericDate(now),
				ExpiresAt: jwt.NewNumericDate(exp),
			},
			Email:        u.Email,
			Phone:        u.Phone,
			AppMetadata:  u.AppMetadata,
			UserMetadata: u.UserMetadata,
			Role:         role,
			AAL:          aal,
			AMR:          amr,
			SessionID:    sessionID,
			IsAnonymous:  u.IsAnonymous,
		},
		Aud: aud,
	}
	// The key set's current key signs (ES256/RS256 once one is stored,
	// else HS256 from JWT_SECRET); its kid goes into the header.
	signed, err := a.verifier.Keys().Sign(claims)
	if err != nil {
		return nil, err
	}
	return &sessionResponse{
		AccessToken:  signed,
		TokenType:    "bearer",
		ExpiresIn:    int64(a.cfg.JWTExpiry / time.Second),
		ExpiresAt:    exp.Unix(),
		RefreshToken: refresh,
		User:         u,
	}, nil
}

// issuerFor is GoTrue's iss: the public URL of the auth API.
func issuerFor(siteURL string) string {
	return strings.TrimRight(siteURL, "/") + "/auth/v1"
}
