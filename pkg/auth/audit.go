package auth

// Audit actions and log types, as GoTrue writes them into
// auth.audit_log_entries, so Supabase's tooling reads Labelbase's log.
const (
	actionSignedUp        = "user_signedup"
	actionLogin           = "login"
	actionLogout          = "logout"
	actionTokenRefreshed  = "token_refreshed"
	actionTokenRevoked    = "token_revoked"
	actionUpdatedPassword = "user_updated_password"
	actionUserModified    = "user_modified"

	logTeam    = "team"
	logAccount = "account"
	logToken   = "token"
	logUser    = "user"
)

// audit builds an entry for u; callers add traits when GoTrue has some.
func (a *API) audit(u *user, action, logType string, cl client) auditEntry {
	return auditEntry{Action: action, LogType: logType, ActorID: u.ID, Username: u.Email, IP: cl.IP, Now: a.now()}
}
