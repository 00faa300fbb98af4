package auth

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"
)

// maxPasswordBytes is bcrypt's input limit. Longer passwords are refused,
// not silently truncated, so two passwords sharing 72 bytes never match.
const maxPasswordBytes = 72

// checkPassword applies the policy: at least cfg.PasswordMinLength
// characters and at most 72 bytes.
func (a *API) checkPassword(pw string) error {
	if utf8.RuneCountInString(pw) < a.cfg.PasswordMinLength {
		return errWeakPassword(a.cfg.PasswordMinLength)
	}
	if len(pw) > maxPasswordBytes {
		return unprocessable(codeValidationFailed, "Password cannot be longer than %d characters", maxPasswordBytes)
	}
	return nil
}

// maxUserMetadataBytes caps user_metadata as stored (JSON). It rides in
// every access token, which must fit in a request header, and PUT /user
// merges into it, so without a cap it could only grow.
const maxUserMetadataBytes = 16 << 10

// checkMetadata refuses user_metadata whose JSON exceeds the cap.
func checkMetadata(m map[string]any) error {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil || len(b) > maxUserMetadataBytes {
		return unprocessable(codeValidationFailed, "user_metadata cannot be larger than %d bytes", maxUserMetadataBytes)
	}
	return nil
}

// hashPassword returns a "$2a$" bcrypt hash, the prefix GoTrue writes, so
// users can move between Labelbase and hosted Supabase with their passwords.
func (a *API) hashPassword(pw string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(pw), a.cfg.BcryptCost)
	if err != nil {
		return "", fmt.Errorf("auth: hash password: %w", err)
	}
	return string(h), nil
}

// passwordMatches compares pw with hash. An empty hash (a user without a
// password, or none at all) is compared against a dummy hash of the same
// cost, so a sign-in for an unknown email costs as much as a wrong password
// and timing does not reveal which emails exist.
//
// bcrypt reads only the first 72 bytes, so a longer pw (which sign-up
// never stores) is refused rather than matched on its prefix.
func (a *API) passwordMatches(hash, pw string) bool {
	if hash == "" || len(pw) > maxPasswordBytes {
		_ = bcrypt.CompareHashAndPassword(a.dummyHash, []byte(pw[:min(len(pw), maxPasswordBytes)]))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(pw)) == nil
}

// newRefreshToken returns an opaque, unguessable refresh token (192 bits).
func newRefreshToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: refresh token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
