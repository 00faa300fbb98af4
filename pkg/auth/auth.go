// Package auth is Labelbase's GoTrue-compatible /auth/v1: sign-up with an
// invite code, the password and refresh-token grants, the current user,
// logout and settings, shaped so that the unmodified supabase-js signs in
// against it as it would against hosted Supabase.
//
// Users, identities, sessions, refresh tokens and the audit log live in the
// auth schema under GoTrue's table and column names, so a project can move
// between Labelbase and Supabase with its users. Sign-up is autoconfirmed
// unless MAILER_AUTOCONFIRM=false, when a confirmation mail goes out first;
// the email flows (magic links and codes, invites, email change,
// reauthentication, recovery) mail one-time tokens (onetime.go). Sign-up is
// members-only unless INVITE_REQUIRED=false: the database refuses a user
// whose metadata lacks a usable invite code, and this package reports that
// as invalid_invite_code.
package auth

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/labelbase/labelbase/pkg/apierr"
	"github.com/labelbase/labelbase/pkg/config"
	"github.com/labelbase/labelbase/pkg/db"
	"github.com/labelbase/labelbase/pkg/mail"
	"github.com/labelbase/labelbase/pkg/token"
)

// Deps is what the auth API is built from.
type Deps struct {
	Config *config.Config
	// Pool is the owner pool: the auth tables are never exposed to clients.
	Pool *pgxpool.Pool
	// Verifier checks access tokens; nil builds one from Config.JWTSecret
	// on the Now clock.
	Verifier *token.Verifier
	Log      *slog.Logger
	// Now is the clock; nil means time.Now. Tests drive the refresh-token
	// reuse interval and the rate limits with it.
	Now func() time.Time
	// Mailer sends the auth mails; nil means mail is off: the flows run
	// and nothing is sent, as with GoTrue's no-op mailer.
	Mailer mail.Sender
	// Observe, when set, is told how each /token request ended: its
	// grant_type and ok, failed, reuse_detected, rate_limited or error
	// (metrics).
	Observe func(grant, outcome string)
}

// API serves /auth/v1.
type API struct {
	cfg      *config.Config
	pool     *pgxpool.Pool
	verifier *token.Verifier
	log      *slog.Logger
	now      func() time.Time
	issuer   string

	// dummyHash is compared against when a sign-in names no user, so that
	// an unknown email takes as long as a wrong password.
	dummyHash []byte

	tokenLimit  *limiter
	signupLimit *limiter
	updateLimit *limiter
	verifyLimit *limiter

	// allowList is URI_ALLOW_LIST, compiled (redirect.go).
	allowList []redirectPattern
	// ottKey keys the links' tokens (onetime.go).
	ottKey []byte
	mfa    mfaLimits

	observe func(grant, outcome string)

	mailer    mail.Sender
	mailLimit *limiter
	// otpLimit and otpAddressLimit cap the mailing endpoints per IP and
	// per address (mailbudget.go).
	otpLimit        *limiter
	otpAddressLimit *limiter
	// otpMaxAttempts wrong codes delete an emailed one-time code.
	otpMaxAttempts int
	// mailWG tracks recovery mails being sent, which go out after the
	// response so its timing does not tell whether the address exists.
	mailWG sync.WaitGroup
}

// New checks d and returns the API.
func New(d Deps) (*API, error) {
	if d.Config == nil {
		return nil, errors.New("auth: Config is required")
	}
	if d.Pool == nil {
		return nil, errors.New("auth: Pool is required")
	}
	if d.Config.JWTSecret == "" {
		return nil, errors.New("auth: Config.JWTSecret is empty")
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	v := d.Verifier
	if v == nil {
		v = token.NewVerifier(d.Config.JWTSecret, "", now)
	}
	cost := d.Config.BcryptCost
	if cost < bcrypt.MinCost {
		cost = bcrypt.DefaultCost
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("labelbase-no-such-user"), cost)
	if err != nil {
		return nil, err
	}
	if d.Mailer == nil {
		// GoTrue's answer without SMTP: the flows run, nothing is sent.
		// This is the one start-up line about it (app.newMail leaves it here).
		log.Warn("auth: mail is not configured (set SMTP_HOST and SMTP_ADMIN_EMAIL, or MAIL_DEV_INBOX=true for development): " +
			"the mailing endpoints answer as usual but send nothing (recovery, magic links and codes, confirmations, " +
			"invites, email change, reauthentication)")
	}
	allowList, literalOnly := compileAllowList(d.Config.URIAllowList)
	for _, p := range literalOnly {
		log.Warn("auth: URI_ALLOW_LIST entry is not scheme://host/path; it matches only itself, verbatim", "pattern", p)
	}
	limits := limitMaker{now: now}
	if d.Config.RateLimitStore != "memory" {
		limits.pool = d.Pool
	}
	observe := d.Observe
	if observe == nil {
		observe = func(string, string) {}
	}
	return &API{
		cfg:             d.Config,
		pool:            d.Pool,
		verifier:        v,
		log:             log,
		now:             func() time.Time { return now().UTC() },
		issuer:          issuerFor(d.Config.SiteURL),
		dummyHash:       dummy,
		tokenLimit:      limits.make("token", d.Config.RateLimitToken),
		signupLimit:     limits.make("signup", d.Config.RateLimitSignup),
		updateLimit:     limits.make("user_update", d.Config.RateLimitUserUpdate),
		verifyLimit:     limits.make("verify", d.Config.RateLimitVerify),
		allowList:       allowList,
		ottKey:          ottKeyFrom(d.Config.JWTSecret),
		mfa:             newMFALimits(limits, d.Config),
		mailer:          d.Mailer,
		mailLimit:       limits.make("email_sent", d.Config.RateLimitEmailSent),
		otpLimit:        limits.make("otp", d.Config.Security.RateLimitOTP),
		otpAddressLimit: limits.make("otp_address", d.Config.Security.RateLimitOTPAddress),
		otpMaxAttempts:  d.Config.Security.OTPMaxAttempts,
		observe:         observe,
	}, nil
}

// limitMaker builds the API's limiters on the configured store.
type limitMaker struct {
	pool *pgxpool.Pool // nil: in memory
	now  func() time.Time
}

func (m limitMaker) make(name string, rl config.RateLimit) *limiter {
	l := newLimiter(rl, m.now)
	if m.pool != nil {
		return l.shared(m.pool, name)
	}
	return l
}

// SweepRateLimits forgets refilled rate-limit buckets every interval
// until ctx ends (a no-op loop with RATE_LIMIT_STORE=memory, whose maps
// bound themselves).
func (a *API) SweepRateLimits(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, l := range []*limiter{a.tokenLimit, a.signupLimit, a.updateLimit, a.mailLimit, a.verifyLimit, a.mfa.challenge, a.mfa.verify, a.otpLimit, a.otpAddressLimit} {
			if err := l.sweep(ctx); err != nil && ctx.Err() == nil {
				a.log.WarnContext(ctx, "auth: rate-limit sweep failed", "err", err)
			}
		}
	}
}

// Register adds the routes to g, which the server mounts at /auth/v1 behind
// its apikey check.
func (a *API) Register(g *echo.Group) {
	g.POST("/signup", a.signup)
	g.POST("/token", a.token)
	g.GET("/user", a.getUser)
	g.PUT("/user", a.updateUser)
	g.POST("/logout", a.logout)
	g.GET("/settings", a.settings)
	g.GET("/health", a.health)
	g.GET("/.well-known/jwks.json", a.jwks)
	g.POST("/recover", a.recover)
	g.POST("/verify", a.verifyPost)
	g.GET("/admin/users", a.adminListUsers)
	g.POST("/admin/users", a.adminCreateUser)
	g.GET("/admin/users/:id", a.adminGetUser)
	g.PUT("/admin/users/:id", a.adminUpdateUser)
	g.DELETE("/admin/users/:id", a.adminDeleteUser)
	g.POST("/admin/generate_link", a.adminGenerateLink)
	// Email flows, and the features Labelbase does not offer answering as
	// GoTrue does when they are disabled (issue #20).
	g.POST("/otp", a.otp)
	g.POST("/magiclink", a.otp) // GoTrue's older name, still served
	g.POST("/resend", a.resend)
	g.GET("/reauthenticate", a.reauthenticate)
	g.POST("/invite", a.invite)
	a.registerDisabled(g)

	// TOTP two-factor authentication (mfa.go, mfa_admin.go).
	g.POST("/factors", a.enrollFactor)
	g.POST("/factors/:factor_id/challenge", a.challengeFactor)
	g.POST("/factors/:factor_id/verify", a.verifyFactor)
	g.DELETE("/factors/:factor_id", a.unenrollFactor)
	g.GET("/admin/users/:id/factors", a.adminListFactors)
	g.DELETE("/admin/users/:id/factors/:factor_id", a.adminDeleteFactor)
}

// RegisterOpen adds the routes a browser opens without an API key: the
// link in a recovery mail (GET /auth/v1/verify), which hosted Supabase also
// serves outside its key check.
func (a *API) RegisterOpen(e *echo.Echo) {
	e.GET("/auth/v1/verify", a.verifyGet)
	e.GET("/auth/v1/authorize", a.authorize)
}

// tx runs fn in one transaction, committed when fn returns nil. Errors of
// the transaction itself (BEGIN, COMMIT: a lost database) are translated
// like those of its statements.
func (a *API) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, a.pool, pgx.TxOptions{}, fn)
	var ae *apierr.Error
	if err == nil || errors.As(err, &ae) || errors.Is(err, errNotFound) {
		return err
	}
	if db.ConnectionLost(err) || errors.Is(err, context.Canceled) {
		return translate("transaction", err)
	}
	return err
}

// clientOf is the caller as sessions and the audit log record it.
func clientOf(c *echo.Context) client {
	return client{IP: c.RealIP(), UserAgent: c.Request().UserAgent()}
}
