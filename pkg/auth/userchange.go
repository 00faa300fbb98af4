package auth

import (
	"context"
	"time"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// userChange is one validated change to a user, shared by PUT /user (the
// member) and PUT /admin/users/{id} (an administrator): the two differ in
// who may ask for what, not in how a field is checked or written. Fields
// left zero are not touched.
type userChange struct {
	// email is the new address, normalised; "" keeps the current one.
	email string
	// passwordHash is the bcrypt hash of a new password.
	passwordHash string
	userMeta     map[string]any // merged key by key (null removes)
	appMeta      map[string]any // merged key by key (null removes)
	confirmEmail *bool
	role         *string
	setBan       bool
	ban          *time.Time
}

// changeInput is what a caller may send; pointers tell absent from empty.
type changeInput struct {
	Email       *string
	Phone       *string
	Password    *string
	UserMeta    map[string]any
	AppMeta     map[string]any
	Confirm     *bool
	Role        *string
	BanDuration *string
	// currentPhone is the caller's phone: sending it back unchanged is
	// not a phone change.
	currentPhone string
}

// prepareChange validates in and hashes a new password (outside any
// transaction: bcrypt is the slow part). The phone provider is off, so
// any phone change is refused as GoTrue refuses it.
func (a *API) prepareChange(in changeInput) (*userChange, error) {
	ch := &userChange{userMeta: in.UserMeta, appMeta: in.AppMeta, confirmEmail: in.Confirm}
	if in.Phone != nil && *in.Phone != "" && *in.Phone != in.currentPhone {
		return nil, unprocessable(codePhoneProviderDisabled, "Phone logins are disabled")
	}
	if in.Email != nil && *in.Email != "" {
		e, err := normaliseEmail(*in.Email)
		if err != nil {
			return nil, err
		}
		ch.email = e
	}
	if in.Password != nil {
		if err := a.checkPassword(*in.Password); err != nil {
			return nil, err
		}
		h, err := a.hashPassword(*in.Password)
		if err != nil {
			return nil, err
		}
		ch.passwordHash = h
	}
	if in.Role != nil {
		if err := checkRole(*in.Role); err != nil {
			return nil, err
		}
		ch.role = in.Role
	}
	if in.BanDuration != nil {
		b, err := a.banUntil(*in.BanDuration)
		if err != nil {
			return nil, err
		}
		ch.setBan, ch.ban = true, b
	}
	return ch, nil
}

// apply writes ch to u (locked by the caller's transaction) and reports
// whether anything but the password changed. A taken address is
// email_exists, as GoTrue names it on both paths.
func (ch *userChange) apply(ctx context.Context, q dbtx, u *user, now time.Time) (modified bool, err error) {
	if ch.userMeta != nil {
		m := mergeMetadata(u.UserMetadata, ch.userMeta)
		if err := checkMetadata(m); err != nil {
			return false, err
		}
		if err := updateUserMetadata(ctx, q, u.ID, m, now); err != nil {
			return false, err
		}
		modified = true
	}
	if ch.appMeta != nil {
		if err := updateAppMetadata(ctx, q, u.ID, mergeMetadata(u.AppMetadata, ch.appMeta), now); err != nil {
			return false, err
		}
		modified = true
	}
	if ch.email != "" && ch.email != u.Email {
		if err := updateEmail(ctx, q, u.ID, ch.email, now); err != nil {
			return false, emailExists(err)
		}
		modified = true
	}
	if ch.confirmEmail != nil {
		if err := setEmailConfirmed(ctx, q, u.ID, *ch.confirmEmail, now); err != nil {
			return false, err
		}
		modified = true
	}
	if ch.passwordHash != "" {
		if err := updatePassword(ctx, q, u.ID, ch.passwordHash, now); err != nil {
			return false, err
		}
	}
	if ch.role != nil {
		if err := updateRole(ctx, q, u.ID, *ch.role, now); err != nil {
			return false, err
		}
		modified = true
	}
	if ch.setBan {
		if err := updateBan(ctx, q, u.ID, ch.ban, now); err != nil {
			return false, err
		}
		modified = true
	}
	return modified, nil
}

// errUserGone is the answer when the user disappeared between the token
// check and the update.
func errUserGone() *apierr.Error {
	return apierr.New(404, codeUserNotFound, "User not found")
}
