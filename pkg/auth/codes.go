package auth

import (
	"fmt"
	"net/http"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// The error codes /auth/v1 sends. They are GoTrue's, so auth-js maps them to
// the same error classes it would for hosted Supabase (weak_password becomes
// AuthWeakPasswordError, session_not_found signs the client out, ...).
// invalid_invite_code is Labelbase's own.
const (
	codeBadJSON               = "bad_json"
	codeValidationFailed      = "validation_failed"
	codeUserAlreadyExists     = "user_already_exists"
	codeEmailExists           = "email_exists"
	codeWeakPassword          = "weak_password"
	codeSamePassword          = "same_password"
	codeSignupDisabled        = "signup_disabled"
	codeInvalidInviteCode     = "invalid_invite_code"
	codeInvalidCredentials    = "invalid_credentials"
	codeEmailNotConfirmed     = "email_not_confirmed"
	codeUserBanned            = "user_banned"
	codePhoneProviderDisabled = "phone_provider_disabled"
	codeRefreshTokenNotFound  = "refresh_token_not_found"
	codeRefreshTokenUsed      = "refresh_token_already_used"
	codeSessionExpired        = "session_expired"
	codeNoAuthorization       = "no_authorization"
	codeBadJWT                = "bad_jwt"
	codeSessionNotFound       = "session_not_found"
	codeUserNotFound          = "user_not_found"
	codeOverRequestRateLimit  = "over_request_rate_limit"
	codeRequestTooLarge       = "request_too_large"
	// The features Labelbase does not offer (disabled.go, signup.go).
	codeAnonymousProviderDisabled = "anonymous_provider_disabled"
	codeOTPDisabled               = "otp_disabled"
	codeEmailProviderDisabled     = "email_provider_disabled"
	codeSAMLProviderDisabled      = "saml_provider_disabled"
	codeManualLinkingDisabled     = "manual_linking_disabled"
	codeProviderDisabled          = "provider_disabled"
	codeWeb3ProviderDisabled      = "web3_provider_disabled"
	codePasskeyDisabled           = "passkey_disabled"
	codeOAuthServerDisabled       = "oauth_server_disabled"
)

// Messages clients are known to compare against keep GoTrue's wording.
const (
	msgInvalidLogin      = "Invalid login credentials"
	msgInvalidInviteCode = "Invalid invite code"
	msgUserExists        = "User already registered"
)

func badRequest(code, format string, args ...any) *apierr.Error {
	return apierr.New(http.StatusBadRequest, code, format, args...)
}

func unprocessable(code, format string, args ...any) *apierr.Error {
	return apierr.New(http.StatusUnprocessableEntity, code, format, args...)
}

func forbidden(code, format string, args ...any) *apierr.Error {
	return apierr.New(http.StatusForbidden, code, format, args...)
}

// errInvalidCredentials is the one answer to a failed sign-in, whichever
// part was wrong, so the response does not tell which emails exist.
func errInvalidCredentials() *apierr.Error {
	return badRequest(codeInvalidCredentials, msgInvalidLogin)
}

// errWeakPassword carries weak_password.reasons, which auth-js turns into
// AuthWeakPasswordError.reasons.
func errWeakPassword(min int) *apierr.Error {
	e := unprocessable(codeWeakPassword, "Password should be at least %d characters.", min)
	e.Fields = map[string]any{"weak_password": map[string]any{"reasons": []string{"length"}}}
	return e
}

func errBadJSON(err error) *apierr.Error {
	return badRequest(codeBadJSON, "Could not parse request body as JSON: %s", shortJSONError(err)).WithCause(err)
}

// shortJSONError keeps decoder messages useful without echoing the body.
func shortJSONError(err error) string {
	s := fmt.Sprint(err)
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

func newError(status int, code, msg string) *apierr.Error {
	return apierr.New(status, code, "%s", msg)
}
