package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v5"

	"github.com/labelbase/labelbase/pkg/apierr"
)

// GoTrue's admin users API (/admin/users), which supabase.auth.admin.* calls
// with the service_role key as bearer. Every call is audited with the admin
// as actor. Users created here need no invite code: the admin path marks its
// transaction (see adminCreateMarker) and the invite trigger lets it pass.

const (
	codeNotAdmin = "not_admin"

	actionUserDeleted = "user_deleted"

	// GoTrue's paging defaults.
	defaultPerPage = 50
	maxPerPage     = 1000
)

// nilUUID is the actor of an admin call whose token has no sub, as GoTrue
// records a service_role key.
const nilUUID = "00000000-0000-0000-0000-000000000000"

// adminActor is who made an admin call, for the audit log.
type adminActor struct {
	id, name string
}

// requireAdmin checks that the bearer token is a service_role token; any
// other valid token gets GoTrue's 403 not_admin.
func (a *API) requireAdmin(c *echo.Context) (adminActor, error) {
	raw := bearerToken(c.Request())
	if raw == "" {
		return adminActor{}, apierr.New(http.StatusUnauthorized, codeNoAuthorization, "This endpoint requires a valid Bearer token")
	}
	v, err := a.verifier.Verify(raw)
	if err != nil {
		return adminActor{}, forbidden(codeBadJWT, "invalid JWT: unable to parse or verify signature").WithCause(err)
	}
	if v.Role != "service_role" && v.Role != "supabase_admin" {
		return adminActor{}, forbidden(codeNotAdmin, "User not allowed")
	}
	act := adminActor{id: nilUUID, name: v.Role}
	if uuidRE.MatchString(v.Subject) {
		act.id = v.Subject
	}
	return act, nil
}

func (a *API) adminAudit(act adminActor, action string, u *user, cl client) auditEntry {
	return auditEntry{Action: action, LogType: logTeam, ActorID: act.id, Username: act.name, IP: cl.IP, Now: a.now(),
		Traits: map[string]any{"user_id": u.ID, "user_email": u.Email, "user_phone": u.Phone}}
}

// adminUserID reads {id}; GoTrue answers a malformed one with 404.
func adminUserID(c *echo.Context) (string, error) {
	id := c.Param("id")
	if !uuidRE.MatchString(id) {
		return "", apierr.New(http.StatusNotFound, codeValidationFailed, "user_id must be an UUID")
	}
	return strings.ToLower(id), nil
}

func errAdminUserNotFound() error {
	return apierr.New(http.StatusNotFound, codeUserNotFound, "User not found")
}

// adminListUsers handles GET /admin/users?page=&per_page=, newest first,
// with X-Total-Count and a Link header (next, last) that auth-js reads for
// nextPage, lastPage and total.
func (a *API) adminListUsers(c *echo.Context) error {
	if _, err := a.requireAdmin(c); err != nil {
		return err
	}
	page, err := pagingParam(c, "page", 1)
	if err != nil {
		return err
	}
	per, err := pagingParam(c, "per_page", defaultPerPage)
	if err != nil {
		return err
	}
	if per > maxPerPage {
		per = maxPerPage
	}
	if int64(page-1)*int64(per) > 1<<31 {
		return badRequest(codeValidationFailed, "Bad Pagination Parameters: page out of range")
	}
	users, total, err := listUsers(c.Request().Context(), a.pool, per, (page-1)*per)
	if err != nil {
		return err
	}
	base := issuerFor(a.cfg.SiteURL) + "/admin/users"
	last := (total + per - 1) / per
	if last < 1 {
		last = 1
	}
	var links []string
	if page < last {
		links = append(links, fmt.Sprintf(`<%s?page=%d&per_page=%d>; rel="next"`, base, page+1, per))
	}
	links = append(links, fmt.Sprintf(`<%s?page=%d&per_page=%d>; rel="last"`, base, last, per))
	h := c.Response().Header()
	h.Set("Link", strings.Join(links, ", "))
	h.Set("X-Total-Count", strconv.Itoa(total))
	return c.JSON(http.StatusOK, map[string]any{"users": users, "aud": "authenticated"})
}

func pagingParam(c *echo.Context, name string, def int) (int, error) {
	s := c.QueryParam(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, badRequest(codeValidationFailed, "Bad Pagination Parameters: %s must be a positive integer", name)
	}
	if n == 0 {
		return def, nil
	}
	return n, nil
}

// adminUserParams is the body of POST and PUT /admin/users. Pointers tell
// "absent" from "empty".
type adminUserParams struct {
	Email        *string        `json:"email"`
	Phone        *string        `json:"phone"`
	Password     *string        `json:"password"`
	EmailConfirm *bool          `json:"email_confirm"`
	UserMetadata map[string]any `json:"user_metadata"`
	AppMetadata  map[string]any `json:"app_metadata"`
	Role         *string        `json:"role"`
	BanDuration  *string        `json:"ban_duration"`
}

// banUntil turns ban_duration into banned_until: "none" lifts a ban, any
// Go duration ("24h", "876000h") sets one from now.
func (a *API) banUntil(s string) (*time.Time, error) {
	if s == "none" {
		return nil, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return nil, badRequest(codeValidationFailed, "invalid format for ban duration: %q", s)
	}
	t := a.now().Add(d)
	return &t, nil
}

// checkRole allows the roles a user row may carry; GoTrue takes any, but a
// user whose tokens claimed service_role would be an administrator.
func checkRole(r string) error {
	if r != "authenticated" && r != "anon" {
		return badRequest(codeValidationFailed, "role must be authenticated or anon")
	}
	return nil
}

// adminCreateUser handles POST /admin/users.
func (a *API) adminCreateUser(c *echo.Context) error {
	act, err := a.requireAdmin(c)
	if err != nil {
		return err
	}
	var p adminUserParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	if (p.Email == nil || *p.Email == "") && p.Phone != nil && *p.Phone != "" {
		return unprocessable(codePhoneProviderDisabled, "Phone logins are disabled")
	}
	if p.Email == nil || strings.TrimSpace(*p.Email) == "" {
		return badRequest(codeValidationFailed, "Cannot create a user without either an email or phone")
	}
	email, err := normaliseEmail(*p.Email)
	if err != nil {
		return err
	}
	nu := adminNewUser{Email: email, Role: "authenticated", Confirmed: p.EmailConfirm != nil && *p.EmailConfirm,
		UserMetadata: p.UserMetadata}
	if nu.UserMetadata == nil {
		nu.UserMetadata = map[string]any{}
	}
	if err := checkMetadata(nu.UserMetadata); err != nil {
		return err
	}
	nu.AppMetadata = mergeMetadata(p.AppMetadata, map[string]any{"provider": "email", "providers": []string{"email"}})
	if p.Role != nil {
		if err := checkRole(*p.Role); err != nil {
			return err
		}
		nu.Role = *p.Role
	}
	if p.BanDuration != nil {
		if nu.BannedUntil, err = a.banUntil(*p.BanDuration); err != nil {
			return err
		}
	}
	if p.Password != nil {
		if err := a.checkPassword(*p.Password); err != nil {
			return err
		}
		if nu.PasswordHash, err = a.hashPassword(*p.Password); err != nil {
			return err
		}
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	var out *user
	err = a.tx(ctx, func(tx pgx.Tx) error {
		nu.Now = a.now()
		u, err := adminInsertUser(ctx, tx, nu)
		if err != nil {
			return err
		}
		out = u
		return insertAudit(ctx, tx, a.adminAudit(act, actionSignedUp, u, cl))
	})
	if err != nil {
		return emailExists(err)
	}
	return c.JSON(http.StatusOK, out)
}

// emailExists renames a duplicate email to GoTrue's admin-side code.
func emailExists(err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == codeUserAlreadyExists {
		return unprocessable(codeEmailExists, "A user with this email address has already been registered").WithCause(err)
	}
	return err
}

// adminGetUser handles GET /admin/users/{id}.
func (a *API) adminGetUser(c *echo.Context) error {
	if _, err := a.requireAdmin(c); err != nil {
		return err
	}
	u, err := a.adminUser(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, u)
}

// adminUser reads the user an /admin/users/{id} route names, or answers
// GoTrue's user_not_found.
func (a *API) adminUser(c *echo.Context) (*user, error) {
	id, err := adminUserID(c)
	if err != nil {
		return nil, err
	}
	u, err := userByID(c.Request().Context(), a.pool, id, false)
	if errors.Is(err, errNotFound) {
		return nil, errAdminUserNotFound()
	}
	return u, err
}

// adminUpdateUser handles PUT /admin/users/{id}: email, password,
// email_confirm, role, ban_duration, and user_metadata / app_metadata,
// which are merged key by key as GoTrue does (a null value removes a key).
func (a *API) adminUpdateUser(c *echo.Context) error {
	act, err := a.requireAdmin(c)
	if err != nil {
		return err
	}
	id, err := adminUserID(c)
	if err != nil {
		return err
	}
	var p adminUserParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	ch, err := a.prepareChange(changeInput{Email: p.Email, Phone: p.Phone, Password: p.Password,
		UserMeta: p.UserMetadata, AppMeta: p.AppMetadata, Confirm: p.EmailConfirm, Role: p.Role, BanDuration: p.BanDuration})
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	var out *user
	err = a.tx(ctx, func(tx pgx.Tx) error {
		u, err := userByID(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if _, err := ch.apply(ctx, tx, u, a.now()); err != nil {
			return err
		}
		if out, err = userByID(ctx, tx, id, false); err != nil {
			return err
		}
		return insertAudit(ctx, tx, a.adminAudit(act, actionUserModified, out, cl))
	})
	if errors.Is(err, errNotFound) {
		return errAdminUserNotFound()
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

type adminDeleteParams struct {
	ShouldSoftDelete bool `json:"should_soft_delete"`
}

// adminDeleteUser handles DELETE /admin/users/{id}. supabase-js sends
// should_soft_delete in the body; a soft delete keeps the row (deleted_at)
// but frees the email and ends all sessions.
func (a *API) adminDeleteUser(c *echo.Context) error {
	act, err := a.requireAdmin(c)
	if err != nil {
		return err
	}
	id, err := adminUserID(c)
	if err != nil {
		return err
	}
	var p adminDeleteParams
	if err := a.decodeBody(c, &p); err != nil {
		return err
	}
	ctx := c.Request().Context()
	cl := clientOf(c)
	err = a.tx(ctx, func(tx pgx.Tx) error {
		u, err := userByID(ctx, tx, id, true)
		if err != nil {
			return err
		}
		if p.ShouldSoftDelete {
			err = softDeleteUser(ctx, tx, id, a.now())
		} else {
			err = deleteUser(ctx, tx, id)
		}
		if err != nil {
			return err
		}
		return insertAudit(ctx, tx, a.adminAudit(act, actionUserDeleted, u, cl))
	})
	if errors.Is(err, errNotFound) {
		return errAdminUserNotFound()
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{})
}

func structToMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}
